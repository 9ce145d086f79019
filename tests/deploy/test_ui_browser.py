"""The Airflow UI in a real browser (headless Debian chromium + chromium-driver, selenium) on the deployment's
api-server: the ``druid_cluster`` connection form, its "Test Connection" button against the dev Druid and against a
wrong port, the "Druid task" extra link of a finished ingestion, and the Asset's event. Screenshots:
``var/screenshots/ui-*.png``.

The Asset run is the one ``test_assets.py`` proves (session fixture ``asset_pipeline``); alone, this test runs it.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote, urlsplit

import pytest
import requests
from selenium.webdriver.common.action_chains import ActionChains

from tests.net import free_port

from .assets_flow import CONSUMER, PRODUCER, URI
from .browser import Browser, label_xpath, xpath_literal

HOOK_NAME = "Druid cluster (native batch ingestion)"
RELABELS = ("Router / Overlord URL", "Username", "Password", "Port", "Scheme (http/https)")
EXTRA_LABELS = ("Use HTTPS", "Overlord URL", "Coordinator URL", "Broker URL", "Web console URL",
                "Verify TLS certificates", "CA bundle path", "Connect timeout (s)", "Read timeout (s)", "Trusted hosts")
OK, BAD = "asset_ui_ok", "asset_ui_bad_port"


@pytest.fixture(scope="module")
def connections(api, druid_url: str) -> dict[str, int]:
    """Two druid_cluster connections with an explicit port (see docs/deployment.md: the list's Test button sends
    the port, and Airflow refuses a test whose port differs from the stored one)."""
    parts = urlsplit(druid_url)
    ports = {OK: int(parts.port or 8888), BAD: free_port()}
    for conn_id, port in ports.items():
        try:
            api.send("DELETE", f"/connections/{conn_id}")
        except requests.HTTPError as exc:
            if exc.response is None or exc.response.status_code != 404:  # 404: not there yet
                raise
        api.send("POST", "/connections", {"connection_id": conn_id, "conn_type": "druid_cluster",
                                          "host": f"{parts.scheme}://{parts.hostname}", "port": port})
    return ports


@pytest.fixture(scope="module")
def browser(deploy_env: dict[str, str]) -> Iterator[Browser]:
    b = Browser(deploy_env["AIRFLOW_DEV_API_URL"])
    try:
        b.login(deploy_env["AIRFLOW_DEV_ADMIN_USER"], deploy_env["AIRFLOW_DEV_ADMIN_PASSWORD"])
        yield b
    finally:
        print(f"\nscreenshots (var/screenshots/): {', '.join(b.shots)}")
        b.close()


def test_connection_form_shows_our_fields_and_labels(browser: Browser):
    browser.open("/connections")
    browser.find("//button[normalize-space()='Add Connection']", "the Add Connection button").click()
    type_label = browser.find(label_xpath("Connection Type"), "the Connection Type field")
    combo = browser.driver.find_element("id", type_label.get_attribute("for") or "")
    combo.send_keys("Druid cluster")
    browser.find(f"//*[@role='option' and normalize-space()={xpath_literal(HOOK_NAME)}]",
                 f"the option {HOOK_NAME!r}").click()
    for label in RELABELS:
        browser.find(label_xpath(label), f"the standard field labelled {label!r}")
    host = browser.driver.find_element("xpath", "//input[@name='host']")
    assert host.get_attribute("placeholder") == "https://druid-router.example.com:9088"
    browser.find("//button[normalize-space()='Extra Fields']", "the Extra Fields section").click()
    for label in EXTRA_LABELS:
        browser.wait_text(label, f"the extra field {label!r}", timeout=30)
    browser.screenshot("ui-connection-form")
    browser.find("//button[@aria-label='Close']", "the dialog's Close button").click()


def _test_button(browser: Browser, conn_id: str, title: str, needle: str) -> str:
    browser.open("/connections")
    row = browser.find(f"//tr[.//*[normalize-space()={xpath_literal(conn_id)}]]", f"the row of {conn_id}")
    button = row.find_element("xpath", ".//button[@aria-label='Test Connection']")
    browser.driver.execute_script("arguments[0].click()", button)  # a neighbour's tooltip may cover it

    def toast() -> str | None:
        for group in browser.driver.find_elements("xpath", "//*[@data-scope='toast' and @data-part='group']"):
            text = str(group.text)
            if title in text and needle in text:
                return text
        return None

    return str(browser.until(f"a {title!r} toast mentioning {needle!r} for {conn_id}", toast, timeout=60))


def test_test_button_succeeds_against_druid_and_fails_clearly_on_a_wrong_port(browser: Browser, connections):
    ok = _test_button(browser, OK, "Test Connection Successful",
                      f"Connected to Druid at http://127.0.0.1:{connections[OK]}")
    browser.screenshot("ui-test-connection-ok")
    assert "Overlord leader" in ok, ok
    bad = _test_button(browser, BAD, "Test Connection Failed", f"127.0.0.1:{connections[BAD]}")
    browser.screenshot("ui-test-connection-wrong-port")
    assert "Druid connection test failed at the health check" in bad and "connection refused" in bad, bad
    print(f"\nTest button, wrong port: {bad!r}\nTest button, dev Druid: {ok!r}")


def test_druid_task_link_points_at_the_console_task_page(browser: Browser, asset_pipeline, druid_url: str):
    r = asset_pipeline
    browser.open(f"/dags/{PRODUCER}/runs/{quote(r['run_id'], safe='')}/tasks/ingest")
    browser.find("//*[(self::a or self::button or @role='tab') and normalize-space()='Details']",
                 "the Details tab").click()
    link = browser.find("//a[normalize-space()='Druid task']", "the 'Druid task' extra link")
    href = link.get_attribute("href") or ""
    assert href == f"{druid_url}/unified-console.html#tasks/task_id~{r['druid_task_id']}", href
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    browser.screenshot("ui-druid-task-link")
    # the page Druid itself sends its console visitors to (the dev cluster's jars do not serve the console's
    # static files, so the page is not fetched; the fragment is the console's own route to the task)
    hop = requests.get(f"{druid_url}/console.html", allow_redirects=False, timeout=30)
    assert hop.status_code in (301, 302, 307) and hop.headers["Location"] == href.split("#", 1)[0], hop.headers


def test_asset_page_shows_the_event_from_the_producer_and_the_run_it_triggered(browser: Browser, api,
                                                                              asset_pipeline):
    r = asset_pipeline
    [asset] = [a for a in api.get("/assets", uri_pattern="asset_events_web")["assets"] if a["uri"] == URI]
    browser.open(f"/assets/{asset['id']}")
    browser.wait_text("Asset Event", "the Asset Events list")  # "1 Asset Event" / "2 Asset Events"
    source = browser.find(f"//a[contains(@href, {xpath_literal('/runs/' + r['run_id'] + '/tasks/ingest')})]",
                          "the event's Source link to the producer's ingest task")
    assert source.text.strip() == PRODUCER
    triggered = browser.find(f"//a[contains(@href, {xpath_literal('/runs/' + r['consumer']['dag_run_id'])})]",
                             "the event's Triggered Dag Run link to the consumer run")
    assert triggered.text.strip() == CONSUMER
    # the event's extra is a folded JSON editor (Monaco): unfold it with a real click, then read it
    # Monaco draws its folding marks after the page: wait for the mark (a loaded CI machine once had none yet)
    card = "./ancestor::*[.//*[@title='Click to expand the range.']][1]"
    fold = browser.until("the folded extra's expand mark", lambda: source.find_element(
        "xpath", f"{card}//*[@title='Click to expand the range.']"), timeout=30)
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", source)
    ActionChains(browser.driver).move_to_element(fold).click().perform()

    def extra_text() -> str | None:
        text = "".join(str(source.find_element("xpath", f"{card}//*[contains(@class, 'view-lines')]").text).split())
        return text if r["druid_task_id"] in text else None

    shown = browser.until("the event's extra, unfolded, naming the Druid task", extra_text, timeout=30)
    assert f'"interval":"{r["interval"]}"' in shown and '"queryable":true' in shown, shown
    browser.screenshot("ui-asset-event")
