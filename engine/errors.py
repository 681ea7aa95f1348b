"""The engine's errors: each carries a stable ``code`` and its ``params`` beside an English message.

Applications translate by code (python-chess tells its errors apart by type; we add a code so a message can
be rendered in any language without parsing English). An error found inside a larger input is wrapped with
where it was found (:meth:`EngineError.within`): the wrapper's code says where (``at_move``,
``at_action``, ``malformed_action``) and ``params["inner"]`` is the error itself.
"""

from __future__ import annotations

from typing import Any, Self


class EngineError(ValueError):
    """Base of every error the engine raises about its input."""

    def __init__(self, message: str, code: str = "invalid", /, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params

    def within(self, code: str, prefix: str, /, **params: Any) -> Self:
        """The same kind of error, located: ``prefix: message``, with this error as ``params["inner"]``."""
        return type(self)(f"{prefix}: {self}", code, inner=self, **params)

    @property
    def root(self) -> EngineError:
        """The innermost error (what was wrong, without where)."""
        inner = self.params.get("inner")
        return inner.root if isinstance(inner, EngineError) else self
