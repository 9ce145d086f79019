-- One hour of events_web, SQL-based (MSQ), rendered by the core for each partition:
--   interval_start / interval_end  SQL TIMESTAMP text of the run's interval, e.g. 2026-11-01 00:00:00
--   interval_date (YYYY-MM-DD of the interval's start), datasource, events_root (a variable of defs.yaml)
-- The OVERWRITE WHERE must name exactly the run's interval (checked before anything is sent).
REPLACE INTO "{{ datasource }}"
OVERWRITE WHERE __time >= TIMESTAMP '{{ interval_start }}' AND __time < TIMESTAMP '{{ interval_end }}'
SELECT
  TIME_FLOOR(TIME_PARSE("event_ts"), 'PT1M') AS __time,
  "country",
  "device",
  "page_id",
  COUNT(*) AS "rows",
  SUM("resp_bytes") AS "bytes"
FROM TABLE(
  EXTERN(
    '{"type":"local","baseDir":"{{ events_root }}/{{ interval_date }}","filter":"*.json"}',
    '{"type":"json"}'
  )
) EXTEND ("event_ts" VARCHAR, "country" VARCHAR, "device" VARCHAR, "page_id" BIGINT, "resp_bytes" BIGINT)
WHERE TIME_PARSE("event_ts") >= TIMESTAMP '{{ interval_start }}'
  AND TIME_PARSE("event_ts") < TIMESTAMP '{{ interval_end }}'{{ extra_filter | default('') }}
GROUP BY 1, 2, 3, 4
PARTITIONED BY HOUR
