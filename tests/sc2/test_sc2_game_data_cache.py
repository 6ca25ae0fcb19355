"""The bridge asks a game for its game data once per connection (burnysc2 asks at every episode)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sc2.client import Client

from workers.sc2 import bridge


def test_game_data_is_asked_once_per_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[Any] = []

    async def fake_get_game_data(self: Client) -> object:
        asked.append(self._ws)
        return object()

    monkeypatch.setattr(Client, "get_game_data", fake_get_game_data)
    ws_a, ws_b = object(), object()
    cache: list[Any] = []

    async def episodes() -> list[object]:
        got = []
        for ws in (ws_a, ws_a, ws_a, ws_b, ws_b):  # three episodes, then a relaunched game
            got.append(await bridge._RecordingClient(ws, cache).get_game_data())  # type: ignore[arg-type]
        return got

    got = asyncio.run(episodes())
    assert asked == [ws_a, ws_b]
    assert got[0] is got[1] is got[2] and got[3] is got[4] and got[0] is not got[3]
    # without a shared cache (burnysc2's own Client) every episode asks again
    assert asyncio.run(bridge._RecordingClient(ws_a).get_game_data()) is not got[0]  # type: ignore[arg-type]
