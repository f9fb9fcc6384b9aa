"""The charge planner's own process (no Qt here: this module is what the process imports).

Building and editing movement graphs and planning charges run Shapely calls that hold the
interpreter lock for a tenth of a second or more each (making 10^5 segments, a tree of
them), so on a worker *thread* they stall the GUI thread anyway. In a process of its own they
cannot. The process keeps a :class:`geometry.nav.Navigator` of the blocking obstacles, kept up
to date by messages (a whole set, or the edits since: the graphs are then edited near the
change), and plans the charges it is asked for, one at a time, sending the plans back in
batches. Messages (tuples, first item the kind):

* ``("reset", bounds, ids, counts, xy)``: the blocking obstacles (flat outlines, see
  :func:`engine.obstacles.flat_footprints`) and the map bounds;
* ``("edit", removed_ids, ids, counts, xy)``: obstacles taken out and put in;
* ``("plan", job, ids, discs, attacker, targets, max_movement, reach, runup)``: charges of
  token ``attacker`` (an index into ``ids``/``discs``, rows x, y, r) at the ``targets``;
* ``("hurry", job, target)``: that target next; ``("cancel", job)``; ``("quit",)``;
* ``("walk", number, start, goal, radius, asker)``: the shortest walk
  (``Navigator.shortest_path``, no other bodies) of a body of ``radius`` from ``start`` to
  ``goal`` among the obstacles as the messages before it left them (the ruler's walk;
  ``asker`` tells the rulers of several windows apart);
* ``("prepare", radius)``: build the movement graph for bodies of ``radius`` now (the ruler
  was taken up: its first walk then costs no graph build).

Replies: ``("plans", job, {target id: ChargePlan}, done)``; ``("walk", number, answer)`` with
answer ``("path", points, length)``, ``("none",)`` (cannot get there) or ``("refused",
message)`` (the geometry's refusal: a point inside an obstacle, off the map ...). A job stops
early when any other message than a hurry for it, a walk or a prepare comes (a cancel, new obstacles, a
newer job); a walk is answered between two plans of a running job, a prepare after it. Of the walks waiting, only
the latest of each asker is answered (the ruler moved on: the older are of no use). The process is
started by :mod:`engine.child` (from source and from the bundle alike: :func:`child_main`,
then :func:`serve`) and connects back to the window's listener. It
ends, quietly, with the window: the window closes the connection and ends it at exit
(:func:`gui.charge_worker.stop_planner`), and the process takes EOF or a broken pipe as the
order to stop, and SIGTERM from the system when the window is gone
(:mod:`gui.child_process`).
"""

from __future__ import annotations

import numpy as np

from engine import clock

BATCH_S = 0.05


def serve(address, authkey: bytes, parent: int | None = None) -> None:  # pragma: no cover - runs in the child
    """Connect to the window's listener at ``address`` and plan until told to quit, or until
    the window goes (``parent``: its pid): the connection's EOF or a broken pipe, a listener
    already gone, a refused handshake all end the process quietly, as the system's SIGTERM
    does when the parent is gone (:func:`gui.child_process.end_with_parent`)."""
    from multiprocessing import AuthenticationError
    from multiprocessing.connection import Client

    from gui.child_process import end_with_parent

    if not end_with_parent(parent):
        return
    try:
        conn = Client(address, authkey=authkey)
    except (EOFError, OSError, AuthenticationError):  # the window went away before we connected
        return
    try:
        main(conn)
    except (EOFError, OSError):  # the window went away (EOF, a broken pipe, a reset)
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def child_main(args: list[str]) -> int:  # pragma: no cover - runs in the child
    """The child's entry (:func:`engine.child.run`): ``ADDRESS PARENT_PID``, the connection
    key in the environment (:func:`engine.child.take_key`)."""
    from engine.child import take_key

    key = take_key()
    if key is None or len(args) < 2:
        return 2
    serve(args[0], key, int(args[1]))
    return 0


def keep_graphs() -> None:
    """Leave what the process holds now (the navigator, its graphs just built or edited:
    ~10^5 objects at 10,000 obstacles) out of the garbage collector's full passes: a full pass
    over them took 20-65 ms of CPU, inside whichever charge plan set it off (the worst
    charges of the bench). Nothing of it forms cycles: an old navigator dropped after an edit
    is still freed (by its reference count)."""
    import gc

    gc.freeze()


def main(conn) -> None:  # pragma: no cover - runs in the child process
    from engine.obstacles import polygons_from_flat
    from geometry.nav import ChargeFrom, ChargePlan, Navigator

    nav = None
    pending: list = []
    while True:
        msg = pending.pop(0) if pending else conn.recv()
        kind = msg[0]
        if kind == "quit":
            return
        if kind == "walk":
            while conn.poll():  # (a newer walk of the same asker waiting makes this one useless)
                pending.append(conn.recv())
            if not any(m[0] == "walk" and m[5] == msg[5] for m in pending):
                conn.send(("walk", msg[1], walk(nav, *msg[2:5])))
            continue
        if kind == "prepare":
            if nav is not None and not any(m[0] in ("walk", "reset", "edit") for m in pending) and not conn.poll():
                try:
                    nav.prepare(msg[1])
                except ValueError:  # (a radius the geometry refuses: the walk will say so)
                    pass
                keep_graphs()
            continue
        if kind == "reset":
            _, bounds, ids, counts, xy = msg
            nav = Navigator(polygons_from_flat(counts, xy), bounds, ids=ids)
        elif kind == "edit" and nav is not None:
            _, removed, ids, counts, xy = msg
            nav = nav.edited(removed, polygons_from_flat(counts, xy), ids)
        elif kind == "plan" and nav is not None:
            _, job, ids, discs, attacker, targets, max_movement, reach, runup = msg
            todo = list(targets)
            done: set = set()
            batch: dict = {}
            last = clock.now()
            # the attacker's side of its charges once for the job; the other tokens as bodies
            a = discs[attacker]
            bodies = np.delete(discs, attacker, axis=0)
            try:
                mover = ChargeFrom(nav, (a[0], a[1]), a[2], reach=reach, runup=runup, max_movement=max_movement)
                keep_graphs()  # (its graph may have just been built or edited)
                refused = None
            except ValueError as exc:  # the geometry's refusal (the attacker inside an obstacle ...)
                mover, refused = None, str(exc)
            stop = False
            while todo and not stop:
                while conn.poll():  # a hurry for this job, or the next message
                    nxt = conn.recv()
                    if nxt[0] == "hurry" and nxt[1] == job:
                        todo.insert(0, nxt[2])
                    else:
                        pending.append(nxt)
                if any(m[0] not in ("hurry", "walk", "prepare") for m in pending):
                    break  # something newer came: stop this job
                latest = {m[5]: m for m in pending if m[0] == "walk"}
                if latest:  # (answered between two plans; only the latest of each asker)
                    pending[:] = [m for m in pending if m[0] != "walk"]
                    for m in latest.values():
                        conn.send(("walk", m[1], walk(nav, *m[2:5])))
                t = todo.pop(0)
                if t in done:
                    continue
                done.add(t)
                try:
                    if t == attacker:
                        raise ValueError("a token cannot charge itself")
                    if mover is None:
                        raise ValueError(refused)
                    # the same plan as plan_charge with every other token but t as discs
                    plan = mover.plan_at(bodies, t if t < attacker else t - 1, shared_tree=True)
                except ValueError as exc:  # the geometry's refusal (inside an obstacle ...)
                    plan = ChargePlan(False, (), None, None, None, str(exc))
                batch[ids[t]] = plan
                now = clock.now()
                if now - last >= BATCH_S:
                    conn.send(("plans", job, batch, False))
                    batch, last = {}, now
            conn.send(("plans", job, batch, True))


def refusal_text(answer: tuple, encounter) -> str:
    """The message of a ``("refused", ...)`` walk for a person: an obstacle by its name."""
    if len(answer) > 2:
        from engine.names import geometry_text
        from geometry.errors import InsideObstacleError

        role, point, obstacle = answer[2]
        return geometry_text(InsideObstacleError(role, point, obstacle), encounter)
    return answer[1]


def walk(nav, start, goal, radius) -> tuple:
    """The reply to a walk: ``("path", points, length)``, ``("none",)`` or ``("refused",
    message)`` (see the module doc); a point inside an obstacle adds ``(role, point,
    obstacle id)``, for the window to name the obstacle (:func:`refusal_text`)."""
    from geometry.errors import InsideObstacleError

    if nav is None:
        return ("refused", "the planner has no obstacles yet")
    try:
        path = nav.shortest_path(start, goal, radius)
    except InsideObstacleError as exc:
        return ("refused", str(exc), (exc.role, exc.point, exc.obstacle))
    except ValueError as exc:  # the geometry's refusal (inside an obstacle, off the map ...)
        return ("refused", str(exc))
    if path is None:
        return ("none",)
    return ("path", tuple((float(x), float(y)) for x, y in path.points), float(path.length))
