"""sc2pool: the embedded protocol-level StarCraft II engine (s2clientprotocol over a websocket)."""
