"""The /play page in Chromium with games in a database: a game interrupted by a server
restart continues in the page; "My games" lists it; a finished game's rating appears
once it is reviewed."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
from browser_testlib import chromium
from server_testlib import running_server

from gallerist.server.play.store import GameStore
from gallerist.v1 import play_pb2, play_pb2_grpc


def _settled(page: Any) -> None:
    page.wait_for_selector('body[data-busy="0"]', state="attached", timeout=60_000)


def test_a_game_survives_a_restart_and_the_record_shows_it(tmp_path: Path) -> None:
    """Start a game in the page and make a move; restart the server on the same port
    and database; reload: the game is where it was and plays on. "My games" lists it;
    finished and reviewed, the player's rating appears in the page."""
    db = tmp_path / "games.sqlite3"
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        with running_server(workers=1, http_port=0, games=GameStore(db)) as server:
            port = server.http.port
            page.goto(f"http://localhost:{port}/play")
            page.fill("#seed", "31")
            page.click("#start")
            _settled(page)
            page.locator("button.move").first.click()
            _settled(page)
            played = page.get_attribute("body", "data-actions-played")
            game_id = page.evaluate("() => location.hash.slice(6)")
            key = page.evaluate("() => localStorage.getItem('gallerist-player-key')")
        with running_server(workers=1, http_port=port, games=GameStore(db)) as server:
            page.reload()
            _settled(page)
            assert page.get_attribute("body", "data-actions-played") == played
            assert page.locator("a.my-game").count() == 1
            assert page.locator(f"a.my-game[data-game-id='{game_id}']").count() == 1
            page.locator("button.move").first.click()   # it plays on
            _settled(page)
            assert int(page.get_attribute("body", "data-actions-played")) > int(played)
            with grpc.insecure_channel(server.address) as channel:   # to the end, quickly
                stub = play_pb2_grpc.GalleristPlayStub(channel)
                view = stub.GetGame(play_pb2.GameRequest(game_id=game_id))
                while view.actions:
                    view = stub.PlayMove(play_pb2.PlayMoveRequest(
                        game_id=game_id, action=view.actions[0].action))
                stub.ReviewGame(play_pb2.ReviewGameRequest(game_id=game_id, iterations=20))
                record = stub.ListGames(play_pb2.ListGamesRequest(player_key=key))
            assert record.rating.games == 1
            page.reload()
            _settled(page)
            page.wait_for_function(
                "() => document.getElementById('rating').textContent.includes('Your rating')")
            text = page.text_content("#rating")
            assert f"{round(record.rating.elo):,}" in text and "1 reviewed game" in text
            assert "won" in page.text_content("a.my-game") or "$" in page.text_content("a.my-game")
    assert errors == []
