"""Seats run on other machines: a Celery worker per lab, RabbitMQ in between (docs/workers.md).

The league host publishes one task per ask to the lab's own queue in the lab's own RabbitMQ virtual
host; ``league worker`` on the lab's machine runs the seat in its local sandbox with its own
credentials and publishes the raw reply back. The league host times every arrival by its own clock
and seals it; it never holds a lab's credentials. Nothing here is imported unless a roster names a
worker queue, so a one-machine league needs neither Celery nor a broker (extra ``workers``).
"""
