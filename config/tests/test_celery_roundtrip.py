from typing import Any

import pytest

from config.celery import echo


@pytest.mark.redis
@pytest.mark.celery
def test_task_round_trip_through_real_broker_and_worker(celery_worker_process: Any) -> None:
    result = echo.delay({"move": "h8", "ply": 1})

    assert result.get(timeout=30) == {"move": "h8", "ply": 1}
    assert result.status == "SUCCESS"
