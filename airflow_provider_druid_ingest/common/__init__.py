"""What the Airflow operators, sensors and triggers share, so none of them imports another's module.

``run_context`` reads a run's data interval and templated values, ``settings`` holds the deployment defaults
(deferral, grace, trigger arguments), ``assets`` the default outlet, ``results`` maps a core outcome onto an
Airflow result (a return value or the right Airflow exception).
"""
