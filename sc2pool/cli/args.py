"""What the sub-commands share: argument types, so every command rejects bad input the same way
(argparse prints the flag and what was wrong, and exits with status 2), and the help format, so
every command's ``--help`` shows every default."""

from __future__ import annotations

import argparse
import json
from typing import Any


def _int_at_least(text: str, low: int, what: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if v < low:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return v


def positive_int(text: str) -> int:
    return _int_at_least(text, 1, "a positive integer")


def non_negative_int(text: str) -> int:
    return _int_at_least(text, 0, "an integer >= 0")


def positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return v


def json_object(text: str) -> dict[str, Any]:
    """A JSON object given on the command line (keyword arguments that travel as msgpack)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r} ({exc})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}")
    return value


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """``--help`` with every option's default, as ``argparse.ArgumentDefaultsHelpFormatter`` does,
    but only where the help does not say it already and there is a value to show: a flag's
    ``False`` or an unset ``None`` (whose meaning the help text explains) would only be noise."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            not action.option_strings
            or default is None
            or default is False
            or default is argparse.SUPPRESS
            or "default" in text.lower()
        ):
            return action.help
        return f"{text} (default: %(default)s)".lstrip()


class RawDescriptionDefaultsHelpFormatter(argparse.RawDescriptionHelpFormatter, DefaultsHelpFormatter):
    """:class:`DefaultsHelpFormatter` for a command whose description is laid out by hand."""


class Parser(argparse.ArgumentParser):
    """The parser of every sub-command (and theirs): :class:`DefaultsHelpFormatter` unless the
    command picks another formatter."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsHelpFormatter)
        super().__init__(*args, **kwargs)
