"""`loads`/`dumps` for the hooks straight from CPython's `_json` accelerator, without `import json`.

`json` imports `json.decoder`, which imports `re`, which imports `enum`: together about a third of a
hook's time on a busy machine, paid on every Bash call that might be a search. The C scanner and
encoder behind `json` give the same results (tests/test_hook_jsonio.py compares them); where `_json`
is missing (another Python implementation) this falls back to `json`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Callable

_WS = " \t\n\r"
_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}

try:
    import _json

    class _Context:
        """What `_json.make_scanner` reads from a decoder: json.loads's defaults."""

        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = _CONSTANTS.__getitem__
        memo: dict = {}

    _scan: Callable | None = _json.make_scanner(_Context())  # type: ignore[arg-type]  # reads these attributes
except (ImportError, AttributeError):  # pragma: no cover - not CPython
    _json = None  # type: ignore[assignment]
    _scan = None


def loads(text: str | bytes) -> object:
    """As `json.loads`; raises ValueError on anything that is not one JSON value."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    if _scan is None:  # pragma: no cover
        import json

        return json.loads(text)
    n = len(text)
    i = 0
    while i < n and text[i] in _WS:
        i += 1
    try:
        value, end = _scan(text, i)
    except StopIteration as exc:
        raise ValueError(f"not JSON at {exc.value}") from None
    except Exception:  # noqa: BLE001
        # A malformed document: the scanner's own error path imports json.decoder, and run from a bare
        # `_json` it can fail oddly (SystemError). Let the json module give the error; bad input only.
        import json

        return json.loads(text)
    while end < n and text[end] in _WS:
        end += 1
    if end != n:
        raise ValueError(f"extra data at {end}")
    return value


def dumps(value: object, *, separators: tuple[str, str] = (", ", ": "), ensure_ascii: bool = True,
          default: Callable[[object], object] | None = None) -> str:
    """As `json.dumps` with these keyword arguments (no indent, no sorting)."""
    if _json is None:  # pragma: no cover
        import json

        return json.dumps(value, separators=separators, ensure_ascii=ensure_ascii, default=default)

    def refuse(o: object) -> object:
        raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")

    encode = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    if isinstance(value, str):
        return encode(value)
    item_sep, key_sep = separators
    encoder = _json.make_encoder({}, default or refuse, encode, None, key_sep, item_sep, False, False, True)
    return "".join(encoder(value, 0))
