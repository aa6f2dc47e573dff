"""The human seat in a browser: `chancespiel play GAME human AGENT --browser`.

The game is played by `chancespiel play` as ever (evaluation.play.play_game: the same rules,
referee and output); only the person's seat is another bot, `BrowserSeat`, which shows the
position on a page served on 127.0.0.1 and waits for a click on one of its legal moves. The
page is `play_page.html`: the board (evaluation.boards), the moves as buttons, the moves
played so far; it asks the server for the position a few times a second.

The server is bottle's (a small, dependency-free WSGI library; imported only here, so only
`play --browser` loads it) on the standard library's WSGI server, bound to 127.0.0.1 on a free
port, in a thread beside the game. Every request must carry the page's random token (in its
URL), so that no other page the browser has open can play a move, and a move names the
position it answers, so a late or doubled click is refused instead of played somewhere else.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bottle
import pyspiel

from chancespiel.agents.human import InputEndedError
from chancespiel.agents.protocol import search_state
from chancespiel.evaluation.boards import Frame, draw
from chancespiel.games.core import CHANCE

TEMPLATE = Path(__file__).with_name("play_page.html")
HOST = "127.0.0.1"
POLL_S = 0.25  # how often a waiting thread looks for Ctrl-C, a click or the page
FINAL_WAIT_S = 5.0  # how long the server stays up after the game for the page to see its end
START_WAIT_S = 10.0  # how long the server may take to start
MAX_LOG = 500  # moves the page lists (the latest)
MAX_BODY = 1000  # bytes of a move's request


class Table:
    """What the game thread and the server share: the position the page shows, and the move a
    click chose. The game thread publishes (`show`, `ask`, `finish`); the server's requests
    read (`view`) and answer (`submit`, `leave`). Everything is guarded by one condition."""

    def __init__(self, title: str, names: list[str]):
        self.title = title
        self.names = names
        self.changed = threading.Condition()
        self.number = 0  # of the position shown; a move answers one number
        self.position: dict[str, Any] = {}
        self.log: list[str] = []
        self.last: tuple[int | None, str] = (None, "")  # the last action and its name
        self.wanted: list[int] = []  # the legal moves of the position asking, if one is
        self.chosen: int | None = None
        self.left = False  # the person left the game (the page's button)
        self.seen_end = False  # the page has shown the game's end

    def _publish(self, state: pyspiel.State, status: str, moves: list[int], **extra: Any) -> None:
        """Makes `state` the page's position (called with the condition held)."""
        self.number += 1
        player = state.current_player()
        core = search_state(state).clone()
        last, last_text = self.last
        self.position = {
            "title": self.title,
            "number": self.number,
            "board": draw(Frame(core, None, "", last, last_text)),
            "status": status,
            "player": player,
            "moves": [[a, state.action_to_string(player, a)] for a in moves],
            "log": self.log[-MAX_LOG:],
            "over": False,
            **extra,
        }
        self.wanted = moves
        self.chosen = None
        self.changed.notify_all()

    def show(self, state: pyspiel.State, player: int, action: int) -> None:
        """A move is played (the observer of play_game, before the move is applied): the page
        gets the position after it."""
        name = state.action_to_string(player, action)
        after = state.clone()
        after.apply_action(action)
        with self.changed:
            who = "chance" if player == CHANCE else f"player {player} ({self.names[player]})"
            self.log.append(f"{who}: {name}")
            self.last = (action, name)
            nxt = after.current_player()
            if nxt >= 0:
                status = f"player {nxt} ({self.names[nxt]}) to move"
            else:
                status = "chance" if nxt == CHANCE else "the game is over"
            self._publish(after, status, [])

    def ask(self, state: pyspiel.State, player: int) -> int:
        """The move the person clicks in `state` (player `player`'s turn).

        Raises:
          InputEndedError: if the person left the game.
        """
        with self.changed:
            self._publish(
                state, f"player {player} ({self.names[player]}): your move", state.legal_actions()
            )
            while self.chosen is None and not self.left:
                self.changed.wait(POLL_S)  # (a timeout, so that Ctrl-C gets through)
            if self.left:
                raise InputEndedError("the person left the game in the browser")
            chosen = self.chosen
            assert chosen is not None
            self.wanted = []
            return chosen

    def finish(self, state: pyspiel.State, result: str) -> None:
        """The game is over: the page shows `result`; returns once the page has shown it, or
        after FINAL_WAIT_S (a page closed already)."""
        with self.changed:
            self._publish(state, result, [])
            self.position["over"] = True
            deadline = time.monotonic() + FINAL_WAIT_S
            while not self.seen_end and time.monotonic() < deadline:
                self.changed.wait(POLL_S)

    # The server's side ------------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """The position to show."""
        with self.changed:
            return self.position

    def seen(self) -> None:
        """The page says it shows the game's end (only then may the server stop: a response
        cut short by stopping would leave the page without the result)."""
        with self.changed:
            if self.position.get("over"):
                self.seen_end = True
                self.changed.notify_all()

    def submit(self, number: object, action: object) -> str | None:
        """Plays the clicked `action` on the position `number`; a reason if refused."""
        with self.changed:
            if not self.wanted:
                return "it is not your move"
            if number != self.number or self.chosen is not None:
                return "that position has passed: the page shows the current one"
            if type(action) is not int or action not in self.wanted:
                return f"{action!r} is not a legal move here"
            self.chosen = action
            self.position = {**self.position, "moves": []}  # answered: asks no more
            self.changed.notify_all()
            return None

    def leave(self) -> None:
        """The person leaves: the game is abandoned."""
        with self.changed:
            self.left = True
            self.changed.notify_all()


class BrowserSeat(pyspiel.Bot):
    """A person's seat whose moves are clicked on the page of `table`."""

    def __init__(self, player: int, table: Table):
        pyspiel.Bot.__init__(self)
        self.player = player
        self.table = table

    def step(self, state: pyspiel.State) -> int:
        """The move the person clicks in `state`, which must be this seat's turn."""
        if state.current_player() != self.player:
            raise ValueError(
                f"human plays player {self.player} but it is player {state.current_player()}'s turn"
            )
        return self.table.ask(state, self.player)

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to reset."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """The page shows every move (Table.show)."""


def make_app(table: Table, token: str) -> bottle.Bottle:
    """The web application: the page, its position (JSON), a move, leaving, and the page's
    word that it shows the end."""
    app = bottle.Bottle()
    page = TEMPLATE.read_text(encoding="utf-8")

    def checked(handler: Callable[[], Any]) -> Callable[[], Any]:
        def guarded() -> Any:
            given = bottle.request.query.get("t") or bottle.request.headers.get("X-Token", "")
            if not secrets.compare_digest(str(given), token):
                bottle.response.status = 403
                return {"error": "this page is not the game's (its token is wrong)"}
            return handler()

        return guarded

    @app.get("/")
    @checked
    def index() -> str:
        bottle.response.set_header("Cache-Control", "no-store")
        return page

    @app.get("/position")
    @checked
    def position() -> dict[str, Any]:
        bottle.response.set_header("Cache-Control", "no-store")
        return table.view()

    @app.post("/move")
    @checked
    def move() -> dict[str, Any]:
        if not 0 <= bottle.request.content_length <= MAX_BODY:  # (-1: not given)
            bottle.response.status = 413
            return {"error": f"a move is a small JSON object, at most {MAX_BODY} bytes"}
        try:
            data = json.loads(bottle.request.body.read(MAX_BODY) or b"null")
        except ValueError:
            data = None
        if not isinstance(data, dict):
            bottle.response.status = 400
            return {"error": "a move is a JSON object: {number, action}"}
        refused = table.submit(data.get("number"), data.get("action"))
        if refused is not None:
            bottle.response.status = 409
            return {"error": refused}
        return {"ok": True}

    @app.post("/leave")
    @checked
    def leave() -> dict[str, Any]:
        table.leave()
        return {"ok": True}

    @app.post("/seen")
    @checked
    def seen() -> dict[str, Any]:
        table.seen()
        return {"ok": True}

    return app


class Server:
    """The page's server on 127.0.0.1 and a free port, in a thread beside the game."""

    def __init__(self, table: Table):
        self.token = secrets.token_urlsafe(16)
        self.adapter = bottle.WSGIRefServer(host=HOST, port=0)
        self.adapter.quiet = True  # no line per request on the terminal, which shows the game
        self.thread = threading.Thread(
            target=self.adapter.run, args=(make_app(table, self.token),), daemon=True
        )

    def start(self) -> None:
        """Starts serving.

        Raises:
          OSError: if the server does not start (no free port, say).
        """
        self.thread.start()
        deadline = time.monotonic() + START_WAIT_S
        while getattr(self.adapter, "srv", None) is None:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise OSError(f"the server did not start on {HOST}")
            time.sleep(0.01)

    @property
    def url(self) -> str:
        """The page's address, with its token."""
        return f"http://{HOST}:{self.adapter.port}/?t={self.token}"

    def stop(self) -> None:
        """Stops serving (the thread ends)."""
        server = getattr(self.adapter, "srv", None)
        if server is not None:
            server.shutdown()
            server.server_close()
        self.thread.join(START_WAIT_S)
