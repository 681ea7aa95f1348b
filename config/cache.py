"""The cache on Redis, with one client object per connection pool.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` around its pool for every call, and
building one fills its table of reply callbacks (a few hundred entries): a move paid for that twice, in its
rate limit's read and write. The client is thread-safe and holds no state of its own beyond the pool, so
one per pool serves every call.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache as _RedisCache
from django.core.cache.backends.redis import RedisCacheClient as _RedisCacheClient


class RedisCacheClient(_RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        client = self._clients.get(index)
        if client is None:
            django: Any = self  # Django's private attributes, which its stubs do not declare
            if index not in django._pools:
                django._pools[index] = django._pool_class.from_url(django._servers[index], **django._pool_options)
            client = self._clients[index] = django._client(connection_pool=django._pools[index])
        return client


class RedisCache(_RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient
