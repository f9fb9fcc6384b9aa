"""Every importer failure reaches the user as a :class:`~engine.errors.CoverfireError`.

The window shows Coverfire's errors and only those; a bug or an unforeseen shape of file
that raised ``KeyError``, ``RecursionError`` or a pydantic ``ValidationError`` would show
nothing at all. :func:`guarded` turns any such exception into an
:class:`~engine.errors.ImportFileError` naming the file and the fault in one line.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from engine.errors import CoverfireError, ImportFileError


@contextlib.contextmanager
def guarded(file: str, what: str = "the file") -> Iterator[None]:
    """Run an import; a non-Coverfire exception becomes :class:`ImportFileError` for ``file``,
    and an :class:`ImportFileError` raised without a file is given ``file``."""
    try:
        yield
    except ImportFileError as exc:
        if exc.file is None:
            raise ImportFileError(exc.reason, file=file, path=exc.path) from None
        raise
    except CoverfireError:
        raise
    except MemoryError:
        raise ImportFileError(f"{what} is too large to import (out of memory)", file=file) from None
    except RecursionError:
        raise ImportFileError(f"{what} is nested too deeply to import", file=file) from None
    except Exception as exc:  # noqa: BLE001 - the point: nothing else reaches the user
        text = str(exc).splitlines()[0] if str(exc) else ""
        text = text if len(text) <= 160 else text[:157] + "..."
        raise ImportFileError(
            f"{what} could not be imported ({type(exc).__name__}{': ' + text if text else ''}); "
            "nothing was changed", file=file) from exc
