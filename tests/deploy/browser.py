"""A headless Debian chromium driven by selenium through Debian's matching chromium-driver (no browser download),
logged into the deployment's Airflow UI; screenshots go to ``var/screenshots/`` (git-ignored, kept by CI).

Selectors are the UI's own accessible names and form names (labels, ``aria-label``, ``name=``, link text), which
Airflow's React app keeps stable across releases, rather than generated CSS classes.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "var" / "screenshots"


def require_browser() -> tuple[str, str]:
    """Paths of chromium and chromedriver; a missing one fails loudly with the install command."""
    found = (shutil.which("chromium"), shutil.which("chromedriver"))
    if not all(found):
        raise AssertionError(f"chromium={found[0]}, chromedriver={found[1]}: run bash scripts/ci/browser.sh "
                             "(apt-get install chromium chromium-driver)")
    return found[0] or "", found[1] or ""


class Browser:
    """The few things the UI test does: log in, open a page, wait for an element or a text, screenshot."""

    def __init__(self, base_url: str, timeout: float = 90.0) -> None:
        chromium, driver = require_browser()
        opts = webdriver.ChromeOptions()
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                    "--window-size=1440,1000", "--lang=en-US"):
            opts.add_argument(arg)
        opts.binary_location = chromium
        self.driver = webdriver.Chrome(service=Service(driver), options=opts)
        self.driver.set_page_load_timeout(timeout)
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.shots: list[str] = []

    def close(self) -> None:
        self.driver.quit()

    def until(self, what: str, probe: Callable[[], Any], timeout: float | None = None) -> Any:
        """``probe()`` until truthy; the failure names what was awaited and saves a screenshot of the page."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            try:
                value = probe()
            except (StaleElementReferenceException, WebDriverException):
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                shot = self.screenshot(f"failed-{len(self.shots)}")
                raise AssertionError(f"UI: {what} not seen after {timeout or self.timeout:.0f}s at "
                                     f"{self.driver.current_url} (screenshot {shot})")
            time.sleep(0.5)

    def find(self, xpath: str, what: str, timeout: float | None = None) -> WebElement:
        def visible() -> WebElement | None:
            return next((e for e in self.driver.find_elements(By.XPATH, xpath) if e.is_displayed()), None)

        element: WebElement = self.until(what, visible, timeout)
        return element

    def open(self, path: str) -> None:
        self.driver.get(self.base_url + path)

    def login(self, username: str, password: str) -> None:
        self.open("/auth/login?next=%2F")
        self.find("//input[@name='username']", "the login form").send_keys(username)
        self.find("//input[@name='password']", "the password field").send_keys(password)
        self.find("//button[@type='submit' and not(@disabled)]", "an enabled Sign in button").click()
        self.until("the UI after sign-in", lambda: "/auth/login" not in self.driver.current_url)

    def text(self) -> str:
        return str(self.driver.find_element(By.TAG_NAME, "body").text)

    def wait_text(self, needle: str, what: str, timeout: float | None = None) -> str:
        return str(self.until(what, lambda: self.text() if needle in self.text() else None, timeout))

    def screenshot(self, name: str) -> str:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        self.shots.append(path.name)
        return str(path.relative_to(ROOT))


def label_xpath(text: str) -> str:
    """A form label by its visible text (the required marker '*' is a child span, so match the start)."""
    return f"//label[starts-with(normalize-space(.), {xpath_literal(text)})]"


def xpath_literal(text: str) -> str:
    if "'" not in text:
        return f"'{text}'"
    return "concat('" + text.replace("'", "', \"'\", '") + "')"
