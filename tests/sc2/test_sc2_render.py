"""Rendering SC2 games: the frame renderer on raw observations, the host's ``render_mode``, frames
through the pool (local and remote workers) and SB3's own ``VecVideoRecorder`` on a ZmqVecEnv."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import portpicker
import pytest
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.game import Game
from sc2pool.training.render import ALLIANCE_COLORS, BEACON_COLOR, ENEMY, MINERAL_COLOR, SELF, FrameRenderer
from workers.host import HostSpec
from workers.sc2.host import SC2EnvHost


@pytest.fixture(autouse=True)
def _embedded_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SC2PATH", raising=False)


def _engine_game(scenario: str, seed: int = 3) -> tuple[Game, int]:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=f"mini_games/{scenario}.SC2Map"), random_seed=seed)
    req.player_setup.add(type=sc_pb.Participant, race=1)
    game = Game.create(req)
    pid = game.join(sc_pb.RequestJoinGame(race=1, options=sc_pb.InterfaceOptions(raw=True, score=True)))
    return game, pid


def _beacon_hw(size: int) -> tuple[int, int]:
    """(height, width) of MoveToBeacon frames at ``size`` px, whatever the engine's arena."""
    game, pid = _engine_game("MoveToBeacon")
    r = FrameRenderer(game.game_info(pid), size)
    return r.height, r.width


def _units(obs: sc_pb.ResponseObservation, alliance: int) -> list[Any]:
    return [u for u in obs.observation.raw_data.units if u.alliance == alliance]


def _renderer(info: sc_pb.ResponseGameInfo, batched: bool, size: int = 256) -> FrameRenderer:
    """A renderer forced onto one of its two drawing paths (per unit, or batched)."""
    r = FrameRenderer(info, size)
    r.vector_min_units = 0 if batched else 10**9
    return r


BOTH_PATHS = pytest.mark.parametrize("batched", [False, True], ids=["per-unit", "batched"])


def _pixel(r: FrameRenderer, img: np.ndarray, x: float, y: float) -> np.ndarray:
    col, row = r.to_pixel(x, y)
    return img[int(row), int(col)]


def test_frame_shape_follows_the_playable_area_and_size() -> None:
    game, pid = _engine_game("MoveToBeacon")
    info = game.game_info(pid)
    obs = game.observation(pid)
    area = info.start_raw.playable_area
    w, h = area.p1.x - area.p0.x, area.p1.y - area.p0.y  # 32 x 24 today: wider than high
    assert w >= h
    img = FrameRenderer(info).render(obs)
    assert img.dtype == np.uint8 and img.shape == (2 * round(256 * h / w / 2), 256, 3)
    small = FrameRenderer(info, size=100).render(obs)
    assert small.shape == (2 * round(100 * h / w / 2), 100, 3) and small.shape[0] % 2 == 0  # even sides (H.264)
    with pytest.raises(ValueError, match="render size"):
        FrameRenderer(info, size=4)


@BOTH_PATHS
def test_units_appear_at_their_position_in_their_colour(batched: bool) -> None:
    game, pid = _engine_game("MoveToBeacon")
    r = _renderer(game.game_info(pid), batched)
    obs = game.observation(pid)
    img = r.render(obs)
    (marine,) = _units(obs, SELF)
    (beacon,) = _units(obs, 3)
    floor = tuple(r.ground[100, 100])  # the open arena's pathable ground
    assert tuple(_pixel(r, img, marine.pos.x, marine.pos.y)) == ALLIANCE_COLORS[SELF]
    # The beacon is a ring: its colour on the rim, the ground in the middle.
    assert tuple(_pixel(r, img, beacon.pos.x + beacon.radius * 0.8, beacon.pos.y)) == BEACON_COLOR
    assert tuple(_pixel(r, img, beacon.pos.x, beacon.pos.y)) == floor
    # A disc of the unit's real radius: just outside it, the ground again.
    assert tuple(_pixel(r, img, marine.pos.x + marine.radius + 0.4, marine.pos.y)) == floor

    game, pid = _engine_game("DefeatRoaches")
    r = _renderer(game.game_info(pid), batched)
    obs = game.observation(pid)
    img = r.render(obs)
    for u in _units(obs, ENEMY):
        assert tuple(_pixel(r, img, u.pos.x, u.pos.y)) == ALLIANCE_COLORS[ENEMY]

    game, pid = _engine_game("CollectMineralShards")
    r = _renderer(game.game_info(pid), batched)
    obs = game.observation(pid)
    img = r.render(obs)
    shards = [u for u in obs.observation.raw_data.units if u.alliance == 3]
    assert len(shards) > 5
    for u in shards:
        col, row = r.to_pixel(u.pos.x, u.pos.y)
        if row < 16 and col < 130:
            continue  # under the score label in the corner
        assert tuple(_pixel(r, img, u.pos.x, u.pos.y)) == MINERAL_COLOR


@BOTH_PATHS
def test_health_bar_shows_the_fraction_left(batched: bool) -> None:
    game, pid = _engine_game("DefeatRoaches")
    info = game.game_info(pid)
    r = _renderer(info, batched)
    obs = game.observation(pid)
    roach = _units(obs, ENEMY)[0]
    hurt = sc_pb.ResponseObservation()
    hurt.CopyFrom(obs)
    for u in hurt.observation.raw_data.units:
        if u.tag == roach.tag:
            u.health = u.health_max / 4

    def bar(img: np.ndarray) -> np.ndarray:
        col, row = r.to_pixel(roach.pos.x, roach.pos.y)
        rad = roach.radius * r.scale
        y = int(row - rad) - 3
        bw = max(6, int(round(2 * rad)))
        left = int(round(col - bw / 2))
        return img[y, left : left + bw]

    full, quarter = bar(r.render(obs)), bar(r.render(hurt))
    back = (40, 0, 0)
    assert sum(tuple(p) == back for p in full) == 0
    filled = sum(tuple(p) != back for p in quarter)
    assert abs(filled - len(quarter) / 4) <= 1, (filled, len(quarter))
    assert quarter[0][0] > quarter[0][1]  # low health turns the bar red


def test_both_drawing_paths_draw_the_same_picture() -> None:
    game, pid = _engine_game("DefeatZerglingsAndBanelings")
    info = game.game_info(pid)
    game.step(22 * 5)  # the armies have met: overlapping discs, damaged units
    obs = game.observation(pid)
    one, batch = _renderer(info, False).render(obs), _renderer(info, True).render(obs)
    assert one.shape == batch.shape
    differ = np.abs(one.astype(int) - batch.astype(int)).max(axis=2) > 8
    # Only anti-aliased edges where discs overlap may differ (the batch blends each edge with
    # what was under it before the batch).
    assert differ.mean() < 0.01, differ.sum()


@BOTH_PATHS
def test_snapshots_are_dim_and_hidden_units_absent(batched: bool) -> None:
    game, pid = _engine_game("DefeatRoaches")
    r = _renderer(game.game_info(pid), batched)
    obs = game.observation(pid)
    changed = sc_pb.ResponseObservation()
    changed.CopyFrom(obs)
    enemies = [u for u in changed.observation.raw_data.units if u.alliance == ENEMY]
    enemies[0].display_type = 2  # snapshot: seen before, now under fog
    enemies[1].display_type = 3  # hidden
    img = r.render(changed)
    floor = r.ground[100, 100].astype(int)
    red = np.array(ALLIANCE_COLORS[ENEMY])
    snap = _pixel(r, img, enemies[0].pos.x, enemies[0].pos.y).astype(int)
    assert 0 < np.abs(snap - floor).sum() < np.abs(red - floor).sum() * 0.6  # fainter than a visible one
    assert tuple(_pixel(r, img, enemies[1].pos.x, enemies[1].pos.y)) == tuple(floor)


def test_score_and_time_are_printed() -> None:
    game, pid = _engine_game("MoveToBeacon")
    r = FrameRenderer(game.game_info(pid))
    obs = game.observation(pid)
    early = r.render(obs)
    game.step(22 * 64)  # about one game minute later
    late = r.render(game.observation(pid))
    text_box = (slice(0, 14), slice(0, 120))
    assert not np.array_equal(early[text_box], late[text_box]), "the clock in the corner did not change"
    assert (early[text_box].max(axis=2) > 200).sum() > 20, "no bright text pixels in the corner"


def test_fogged_cells_are_darker() -> None:
    game, pid = _engine_game("MoveToBeacon")
    r = FrameRenderer(game.game_info(pid))
    obs = game.observation(pid)
    fog = sc_pb.ResponseObservation()
    fog.CopyFrom(obs)
    fog.observation.raw_data.ClearField("units")
    vis = fog.observation.raw_data.map_state.visibility
    grid = np.full((vis.size.y, vis.size.x), 2, dtype=np.uint8)
    grid[:, : r.x0 + 8] = 0  # the western strip never seen
    vis.data = grid.tobytes()
    img = r.render(fog)
    assert img[100, 10].sum() < r.ground[100, 10].sum() * 0.5
    assert np.array_equal(img[100, 200], r.ground[100, 200])


# -- whole melee games on a ladder map ------------------------------------------------------------


def _melee(seed: int = 1) -> tuple[Game, int]:
    """A melee game on AcidPlantLE (two levels of high ground and cliffs) against the Computer."""
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="AcidPlantLE.SC2Map"), random_seed=seed)
    req.player_setup.add(type=sc_pb.Participant, race=1)
    req.player_setup.add(type=sc_pb.Computer, race=1, difficulty=1)
    game = Game.create(req)
    pid = game.join(sc_pb.RequestJoinGame(race=1, options=sc_pb.InterfaceOptions(raw=True, score=True)))
    return game, pid


@pytest.fixture(scope="module")
def melee() -> tuple[sc_pb.ResponseGameInfo, sc_pb.ResponseObservation, Game, int]:
    game, pid = _melee()
    return game.game_info(pid), game.observation(pid), game, pid


def _near(img: np.ndarray, color: tuple[int, int, int], tol: int = 12) -> np.ndarray:
    return np.abs(img.astype(int) - np.array(color)).max(axis=2) <= tol


def test_a_melee_frame_is_256_px_on_its_long_side(melee: Any) -> None:
    info, obs, _, _ = melee
    r = FrameRenderer(info)
    img = r.render(obs)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert max(img.shape[:2]) == 256 and img.shape[0] % 2 == 0 and img.shape[1] % 2 == 0
    assert r.compact  # under 4 px a cell: bars only on damaged units
    text = FrameRenderer.hud(obs.observation)
    assert text.startswith("0:00  m50 g0  12/15  army 0"), text


def test_height_levels_and_cliffs_differ_in_the_background(melee: Any) -> None:
    info, _, _, _ = melee
    r = FrameRenderer(info)
    raw = info.start_raw
    height = np.frombuffer(raw.terrain_height.data, np.uint8).reshape(raw.map_size.y, raw.map_size.x)
    walk = np.unpackbits(np.frombuffer(raw.pathing_grid.data, np.uint8))[: height.size].reshape(height.shape)
    h = height[np.ix_(r._rows, r._cols)].astype(int)
    w = walk[np.ix_(r._rows, r._cols)].astype(bool)
    # pathable pixels two levels apart, each inside a 5x5 block of its own level (away from cliffs)
    flat = np.ones_like(w)
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            flat &= np.roll(np.roll(h, dy, 0), dx, 1) == h
            flat &= np.roll(np.roll(w, dy, 0), dx, 1)
    levels = sorted(set(np.unique(h[w & flat]).tolist()))
    assert levels[-1] - levels[0] >= 16, levels
    low = r.ground[(h == levels[0]) & w & flat].astype(int).sum(axis=1)
    high = r.ground[(h == levels[-1]) & w & flat].astype(int).sum(axis=1)
    assert high.min() > low.max(), "higher ground must be drawn brighter"
    # cliffs: a rim between levels, and never inside a flat level
    from sc2pool.training.render import CLIFF_RIM

    rim = _near(r.ground, tuple(int(c) for c in CLIFF_RIM), tol=0)
    assert rim.sum() > 100 and not (rim & flat & w).any()


def test_fog_hidden_darker_than_explored_darker_than_visible(melee: Any) -> None:
    info, obs, _, _ = melee
    r = FrameRenderer(info)
    means = []
    for level in (0, 1, 2):
        o = sc_pb.ResponseObservation()
        o.CopyFrom(obs)
        o.observation.raw_data.ClearField("units")
        vis = o.observation.raw_data.map_state.visibility
        vis.data = bytes([level]) * (vis.size.x * vis.size.y)
        means.append(r.render(o)[20:, :].astype(float).mean())
    assert means[0] < means[1] < means[2]
    # the game's own fog: our base is in sight, the enemy's start is not
    img = r.render(obs).astype(int)
    enemy = info.start_raw.start_locations[0]
    col, row = (int(v) for v in r.to_pixel(enemy.x + 6, enemy.y + 6))
    assert img[row, col].sum() <= r.ground[row, col].astype(int).sum() * 0.5


def test_both_players_in_sight_show_both_colours_and_structures_their_footprint(melee: Any) -> None:
    from s2clientprotocol import debug_pb2

    info, _, _, _ = melee
    game, pid = _melee(seed=2)
    own = next(u for u in game.observation(pid).observation.raw_data.units if u.alliance == 1 and u.unit_type == 18)
    x, y = own.pos.x, own.pos.y
    debug = sc_pb.RequestDebug()
    for owner, dx in ((pid, 6.0), (3 - pid, 9.0)):  # marines of both sides next to our command centre
        debug.debug.add(create_unit=debug_pb2.DebugCreateUnit(
            unit_type=48, owner=owner, quantity=6, pos=common_pb2.Point2D(x=x + dx, y=y)))
    game.debug(pid, debug)
    game.step(1)
    obs = game.observation(pid)
    r = FrameRenderer(game.game_info(pid))
    img = r.render(obs)
    assert sum(u.alliance == ENEMY for u in obs.observation.raw_data.units) == 6  # in sight
    px = img.astype(int)
    reddish = px[..., 0] - px[..., 1:].max(axis=2) > 80
    bluish = px[..., 2] - px[..., :2].max(axis=2) > 80
    assert reddish.sum() >= 12 and bluish.sum() >= 12
    ex, ey = r.to_pixel(x + 9.0, y)
    rows, cols = np.nonzero(reddish)
    assert np.hypot(cols - ex, rows - ey).max() < 4 * r.scale  # the red is the enemy marines
    # the command centre: a 5x5-cell footprint, our colour on its rim and darker inside
    col, row = (int(v) for v in r.to_pixel(x, y))
    half = int(2.5 * r.scale)
    assert np.array_equal(img[row - half, col], ALLIANCE_COLORS[SELF])
    assert np.abs(img[row, col].astype(int) - (np.array(ALLIANCE_COLORS[SELF]) * 0.6).astype(int)).max() <= 1
    # minerals of our main as cyan footprints
    assert _near(img, MINERAL_COLOR).sum() > 8 * 4


def test_creep_and_power_fields_are_tinted(melee: Any) -> None:
    info, obs, _, _ = melee
    r = FrameRenderer(info)
    o = sc_pb.ResponseObservation()
    o.CopyFrom(obs)
    o.observation.raw_data.ClearField("units")
    raw = o.observation.raw_data
    vis = raw.map_state.visibility
    vis.data = bytes([2]) * (vis.size.x * vis.size.y)
    plain = r.render(o)
    creep = raw.map_state.creep
    grid = np.zeros((creep.size.y, creep.size.x), dtype=np.uint8)
    cx, cy = (r.x0 + r.x1) // 2, (r.y0 + r.y1) // 2
    grid[cy - 10 : cy + 10, cx - 10 : cx + 10] = 1
    creep.data = np.packbits(grid.ravel()).tobytes()
    raw.player.power_sources.add(pos=common_pb2.Point(x=r.x0 + 20, y=r.y0 + 20), radius=6.5, tag=1)
    img = r.render(o).astype(int)
    col, row = (int(v) for v in r.to_pixel(cx, cy))
    assert img[row, col, 0] > plain[row, col, 0] and img[row, col, 2] > plain[row, col, 2]  # purple
    pcol, prow = (int(v) for v in r.to_pixel(r.x0 + 20, r.y0 + 20))
    assert img[prow, pcol, 2] > plain[prow, pcol, 2] + 20  # blue
    far = r.to_pixel(r.x1 - 20, r.y1 - 20)
    assert np.array_equal(img[int(far[1]), int(far[0])], plain[int(far[1]), int(far[0])])


def test_the_static_background_is_drawn_once_per_game(melee: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    info, obs, _, _ = melee
    calls = []
    original = FrameRenderer._terrain

    def counting(self: FrameRenderer, *args: Any) -> np.ndarray:
        calls.append(1)
        return original(self, *args)

    monkeypatch.setattr(FrameRenderer, "_terrain", counting)
    r = FrameRenderer(info)
    ground = r.ground.copy()
    frames = [r.render(obs) for _ in range(3)]
    assert len(calls) == 1
    assert np.array_equal(r.ground, ground), "a frame must not draw into the cached background"
    assert all(f is not r.ground for f in frames)


@pytest.mark.timeout(60)
def test_host_renders_its_games(run: Any, no_leaks: None) -> None:
    with pytest.raises(ValueError, match="render_mode"):
        SC2EnvHost(1, render_mode="human")
    host = SC2EnvHost(1, task="MoveToBeacon", engine="inprocess", render_mode="rgb_array", render_size=128)
    try:
        run(host.start())
        assert run(host.render(0)) is None  # nothing observed yet
        run(host.reset([0], [5], [None]))
        img = run(host.render(0))
        assert img.shape == (*_beacon_hw(128), 3) and img.dtype == np.uint8
        # The marine (the only "self" colour) is where the bot sees it.
        marine = host.games[0].bot.units.first
        r = FrameRenderer(host.games[0].bot.game_info._proto, 128)
        assert tuple(_pixel(r, img, marine.position.x, marine.position.y)) == ALLIANCE_COLORS[SELF]
        (res,) = run(host.step([0]))
        assert not np.array_equal(run(host.render(0)), img) or res.terminated
        assert run(host.get_attr(0, "metadata"))["render_fps"] == pytest.approx(22.4 / 8)
    finally:
        run(host.close())
    plain = SC2EnvHost(1, task="MoveToBeacon", engine="inprocess")
    try:
        run(plain.start())
        run(plain.reset([0], [5], [None]))
        assert run(plain.render(0)) is None
    finally:
        run(plain.close())


@pytest.mark.timeout(60)
def test_the_step_that_ends_an_episode_carries_its_last_picture(run: Any, no_leaks: None) -> None:
    host = SC2EnvHost(1, task="MoveToBeacon", engine="inprocess", render_mode="rgb_array", render_size=64)
    try:
        run(host.start())
        run(host.reset([0], [5], [None]))
        for _ in range(1000):
            (res,) = run(host.step([0]))
            if res.terminated or res.truncated:
                break
            assert "terminal_frame" not in res.info
        else:
            pytest.fail("MoveToBeacon did not end within 1000 steps")
        last = res.info["terminal_frame"]
        assert last.shape == (*_beacon_hw(64), 3) and last.dtype == np.uint8
        assert np.array_equal(last, run(host.render(0)))  # the game as it ended, before any reset
    finally:
        run(host.close())


def _read_video(path: Path) -> tuple[tuple[int, int], int]:
    import imageio_ffmpeg

    gen = imageio_ffmpeg.read_frames(str(path))
    meta = next(gen)
    return tuple(meta["size"]), sum(1 for _ in gen)


@pytest.mark.timeout(120)
def test_vec_video_recorder_records_a_pool_of_sc2_games(tmp_path: Path, no_leaks: None) -> None:
    """SB3's own VecVideoRecorder, unmodified, on a ZmqVecEnv of two SC2 games in a worker."""
    from stable_baselines3.common.vec_env import VecVideoRecorder

    from sc2pool import ZmqVecEnv

    spec = HostSpec("workers.sc2.host:make_host", {"task": "MoveToBeacon", "render_mode": "rgb_array"})
    env = ZmqVecEnv(host=spec, n_envs=2, n_workers=1)
    try:
        assert env.render_mode == "rgb_array"
        assert env.metadata["render_fps"] == pytest.approx(2.8)
        rec = VecVideoRecorder(env, str(tmp_path), record_video_trigger=lambda s: s == 0, video_length=6)
        rec.reset()
        for _ in range(8):
            rec.step(np.array([0, 4]))
        rec.close()
    finally:
        env.close()
    (video,) = tmp_path.glob("*.mp4")
    size, frames = _read_video(video)
    h, w = _beacon_hw(256)
    assert size == (w, 2 * h)  # two frames tiled one above the other
    assert frames == 7  # the reset frame + video_length steps


@pytest.mark.timeout(120)
def test_frames_come_from_remote_workers(no_leaks: None) -> None:
    """A remote ``sc2pool worker --task`` renders its games; frames arrive as raw arrays."""
    from sc2pool import ZmqVecEnv

    port = portpicker.pick_unused_port()
    endpoint = f"tcp://127.0.0.1:{port}"
    kwargs = {"render_mode": "rgb_array", "render_size": 64}
    cmd = [sys.executable, "-m", "sc2pool", "worker", "--connect", endpoint, "--task", "MoveToBeacon",
           "--render", "--render-size", "64", "--name", "far", "--log-level", "WARNING"]
    remote = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        spec = HostSpec("workers.sc2.host:make_host", {"task": "MoveToBeacon", **kwargs})
        env = ZmqVecEnv(host=spec, n_envs=2, bind=endpoint, n_local_workers=1, n_local_envs=1, join_timeout=60)
        try:
            env.reset()
            frames = env.get_images()
            h, w = _beacon_hw(64)
            assert [f.shape for f in frames] == [(h, w, 3), (h, w, 3)]
            assert all(f.dtype == np.uint8 and f.flags.writeable for f in frames)
            assert env.render().shape == (2 * h, w, 3)
        finally:
            env.close()
        remote.wait(timeout=20)
    finally:
        if remote.poll() is None:
            remote.kill()
            remote.wait()
        if remote.stderr is not None:
            remote.stderr.close()
