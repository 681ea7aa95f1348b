import threading
from typing import Any

import psycopg
import pytest


@pytest.mark.postgres
def test_postgres_cluster_serialises_concurrent_row_updates(postgresql_cluster: Any) -> None:
    url = postgresql_cluster.url
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE counter (id int primary key, n int not null)")
        conn.execute("INSERT INTO counter VALUES (1, 0)")

    def bump() -> None:
        with psycopg.connect(url) as conn:
            for _ in range(50):
                with conn.transaction():
                    row = conn.execute("SELECT n FROM counter WHERE id = 1 FOR UPDATE").fetchone()
                    conn.execute("UPDATE counter SET n = %s WHERE id = 1", (row[0] + 1,))

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT n FROM counter").fetchone() == (200,)
