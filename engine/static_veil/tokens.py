"""A token's Static Veil data, read and written: the sheet (or the default), a token
replaced in an encounter, a distance as text. Shared by checking (:mod:`legality`) and
applying (:mod:`resolution`)."""

from __future__ import annotations

from engine.errors import UnknownIdError
from engine.model import Encounter, Token
from engine.static_veil.sheet import Settings, Sheet


def sheet_of(token: Token) -> Sheet:
    """The token's Static Veil sheet, or the default one."""
    s = token.rules.get("static-veil")
    return s if s is not None else Sheet()


def metres(v: float) -> str:
    """A distance as the log writes it ("3.0 m")."""
    return f"{v:.1f} m"


def has_token(enc: Encounter, ident: str) -> bool:
    """Whether ``enc`` has a token ``ident``."""
    return any(t.id == ident for t in enc.tokens)


def swap(enc: Encounter, tokens: tuple[Token, ...], settings: Settings | None) -> Encounter:
    """``enc`` with the given tokens replacing those of the same id, and the settings."""
    by_id = {t.id: t for t in tokens}
    missing = set(by_id) - {t.id for t in enc.tokens}
    if missing:
        raise UnknownIdError("token", sorted(missing)[0])
    new_tokens = tuple(by_id.get(t.id, t) for t in enc.tokens)
    return enc.model_copy(update={"tokens": new_tokens}).with_rules("static-veil", settings)
