"""The rule-system registry, keyed by the ``ruleset`` name of the file, and the per-system
mapping of the model (``Token.rules``, ``Encounter.rules``) validated through it.

The model imports this module, not :mod:`engine.rules` (the interface, which imports the
model): the registry names no encounter type, so there is no import circle. Built-in systems
are discovered, not listed: :func:`find_system` imports ``engine.<name with "-" as "_">.system``
on first use, :func:`systems` every ``engine/*/system.py``. A system defined elsewhere (a
plug-in, a test) calls :func:`register` itself.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import CoverfireError

if TYPE_CHECKING:
    from engine.rules import RuleSystem


# --------------------------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------------------------
_REGISTRY: dict[str, RuleSystem] = {}
_DISCOVERED = False


def register(system: RuleSystem) -> RuleSystem:
    """Add ``system`` under its name (replacing one of the same name); returns it."""
    for attr in ("name", "label", "Sheet", "Settings"):
        if getattr(system, attr, None) is None:
            raise TypeError(f"{type(system).__name__} must set {attr}")
    _REGISTRY[system.name] = system
    legacy_keys.cache = None
    return system


def unregister(name: str) -> None:
    """Remove a registered system (for tests that register their own)."""
    _REGISTRY.pop(name, None)
    legacy_keys.cache = None


def _module_for(name: str) -> str:
    return f"engine.{name.replace('-', '_')}.system"


def find_system(name: str) -> RuleSystem:
    """The registered system of this ruleset name; raises :class:`CoverfireError` naming the
    known ones when there is none."""
    system = _REGISTRY.get(name)
    if system is not None:
        return system
    if isinstance(name, str) and name.replace("-", "_").isidentifier():
        mod = _module_for(name)
        if _has_system(name.replace("-", "_")):
            importlib.import_module(mod)
            system = _REGISTRY.get(name)
            if system is not None:
                return system
    known = ", ".join(sorted(s.name for s in systems()))
    raise CoverfireError(f"unknown ruleset {name!r}; known: {known}")


def systems() -> tuple[RuleSystem, ...]:
    """Every registered system (built-ins discovered on first call), sorted by name."""
    global _DISCOVERED
    if not _DISCOVERED:
        for info in pkgutil.iter_modules([str(_engine_dir())]):
            if info.ispkg and _has_system(info.name):
                importlib.import_module(f"engine.{info.name}.system")
        _DISCOVERED = True
    return tuple(sorted(_REGISTRY.values(), key=lambda s: s.name))


def names() -> tuple[str, ...]:
    return tuple(s.name for s in systems())


def default_name() -> str:
    """The ruleset a file means when it names none."""
    for s in systems():
        if s.default:
            return s.name
    return systems()[0].name


def _has_system(package: str) -> bool:
    """Whether ``engine.<package>`` has a ``system`` module, asked of the import system (not
    the file system), so it also holds in a zip or a frozen bundle where no .py file exists."""
    import importlib.util

    try:
        return importlib.util.find_spec(f"engine.{package}.system") is not None
    except ModuleNotFoundError as exc:  # no package of that name; a broken one fails loudly
        if exc.name == f"engine.{package}":
            return False
        raise


def _engine_dir() -> Path:
    return Path(__file__).resolve().parent


def legacy_keys() -> dict[str, str]:
    """Version-1 field name -> ruleset name, for every registered system that had one."""
    if legacy_keys.cache is None:
        legacy_keys.cache = {s.legacy_key: s.name for s in systems() if s.legacy_key}
    return legacy_keys.cache


legacy_keys.cache = None  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------------
# the per-system mapping of the model (Token.rules, Encounter.rules)
# --------------------------------------------------------------------------------------------
def validate_rules(value: Any, kind: str) -> dict[str, Any]:
    """Check a ``rules`` mapping: each key a registered ruleset, each value that system's
    ``Sheet`` (``kind="sheet"``) or ``Settings`` (``kind="settings"``); None values drop out.
    Raises pydantic's ValidationError located under the key."""
    from pydantic import ValidationError

    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"rules must be an object keyed by ruleset name, got {type(value).__name__}")
    out: dict[str, Any] = {}
    for key, data in value.items():
        if data is None:
            continue
        try:
            system = find_system(key)
        except CoverfireError as exc:
            raise ValueError(str(exc)) from None
        model = system.Sheet if kind == "sheet" else system.Settings
        if isinstance(data, model):
            out[key] = data
            continue
        try:
            out[key] = model.model_validate(data)
        except ValidationError as exc:
            raise _relocated(exc, (key,)) from None
    return out


def lift_legacy(data: Any, kind: str) -> Any:
    """Move version-1 per-system fields (``"sr5": {...}`` beside ``x``, ``y``) of a token
    (``kind="sheet"``) or encounter (``kind="settings"``) under ``rules``, validated there
    and located at their old name on error. Anything else passes through unchanged."""
    from pydantic import ValidationError

    if not isinstance(data, dict):
        return data
    legacy = legacy_keys()
    found = [k for k in data if k in legacy]
    if not found:
        return data
    data = dict(data)
    rules = dict(data.get("rules") or {})
    for key in found:
        name = legacy[key]
        value = data.pop(key)
        if value is None:
            continue
        if name in rules:
            raise ValueError(f"{key!r} and rules.{name} both give the {name} data; keep one")
        try:
            rules.update(validate_rules({name: value}, kind))
        except ValidationError as exc:
            raise _relocated(exc, (key,), drop=1) from None
    data["rules"] = rules
    return data


def _relocated(exc: Any, prefix: tuple, drop: int = 0) -> Any:
    """``exc`` (a pydantic ValidationError) with ``prefix`` before every error's location."""
    from pydantic import ValidationError

    errors = []
    for e in exc.errors(include_url=False):
        item = {"type": e["type"], "loc": prefix + tuple(e["loc"])[drop:], "input": e.get("input")}
        if e.get("ctx") is not None:
            item["ctx"] = e["ctx"]
        errors.append(item)
    try:
        return ValidationError.from_exception_data(exc.title, errors)
    except (KeyError, TypeError, ValueError):  # an error type that cannot be rebuilt
        return ValueError(str(exc))
