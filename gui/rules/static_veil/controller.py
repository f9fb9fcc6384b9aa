"""Static Veil in the map window: the maneuver picker, target picking on the map, the
preview drawn before the GM confirms, outcome entry, the combat log, turns, and the map's
grapple links and token marks.

One :class:`StaticVeilController` per main window (installed by
:mod:`gui.rules.static_veil`). It is shown only while the open encounter's ruleset is
``"static-veil"`` and follows file changes. Every question goes to the engine
through its ``RuleSystem`` (``self.system``): ``actions`` for the picker, ``preview`` for the
drawing (``Move`` plans a walk), ``apply`` of a maneuver, ``Move``, ``StartTurn`` or ``EndTurn``
for the change, whose ``Outcome`` lands through the one commit path of every system
(:meth:`gui.rules.base.RuleController.land`: one undo step, its log lines, its notes). Reads of
the sheets and settings go to the same system (``find_system("static-veil")``).

Flow: select a token (the actor) -> click a maneuver -> for a targeted one, click the target
on the map (the tool previews whatever is under the mouse) -> check the preview and enter
the outcome (or roll with the d100 model) -> Confirm.

Dragging a token with the Select tool while a turn is running (``Settings.active`` set) spends
its Movement like the picker's Move, when ``count_moves`` is on: the metres of the way the
engine plans from where the drag started to where it ended, charged by the system's
``on_moves`` in the drag's own single commit (:meth:`gui.rules.base.RuleGui.charge_moves`). A
move the engine refuses (too far, away from a grapple partner, no way) still lands as a free
GM edit, its reason in the status bar.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QVBoxLayout

from gui.action_panel import ActionPage

from engine.errors import CoverfireError, IllegalActionError
# (loaded with the window, when the rule GUIs are found, not in the middle of the first Static
# Veil file's opening: ~60 ms of imports on the GUI thread)
from engine.static_veil.system import EndTurn, Move, StartTurn
from engine.rules import find_system
from gui.combat_log import combat_log_for
from gui.rules.base import Kept, RuleController, RuleGui
from gui.rules.base import token_name as _name
from gui.rules.static_veil.layer import StaticVeilLayer, drawing_for, marks_for, reposition
from gui.rules.static_veil.panel import ManeuverPanel
from gui.tools import PICK_SLACK_PX, Pointer, Tool

RULESET = find_system("static-veil")

RULESET_NAME = "static-veil"
#: Maneuvers that need a place on the map instead of a target token.
POINTED = frozenset({"move_grapple", "move"})
#: The picker's normal move (not a maneuver: the system's ``Move``).
MOVE = "move"
#: Appended to a drag's undo text when its Movement was spent (guards against counting twice).
MOVE_SUFFIX = " (Static Veil: Movement spent)"


def _kind(entry, default: str = "") -> str:
    """The shared log's colour kind of a Static Veil log line: a turn starting is a
    "round" line; otherwise the maneuver's result ("hit" success, "miss" failure)."""
    if entry.maneuver == "start_turn":
        return "round"
    if entry.maneuver == "end_turn":
        return "miss"
    return default


class StaticVeilRules(RuleController):
    """Static Veil's landings and its saved log in the shared combat log (one batch a round
    when a file opens; a turn starting is a "round" line, a maneuver's "hit" or "miss")."""

    ruleset = RULESET_NAME

    def saved_log(self, encounter):
        return RULESET.settings(encounter).log

    def log_lines(self, entries, detail=None) -> list[tuple[str, str]]:
        success = getattr(detail, "success", None)
        kind = "miss" if success is False else ("hit" if success else "")
        return [(e.text, _kind(e, kind)) for e in entries]

    def saved_batches(self, saved):
        out, start = [], 0
        while start < len(saved):  # one batch per round, so each keeps its round number
            end = start
            while end < len(saved) and saved[end].round == saved[start].round:
                end += 1
            out.append((start, end, saved[start].round))
            start = end
        return out


class PickTool(Tool):
    """A map tool while the GM picks a maneuver's target token (``kind="token"``) or a place
    (``kind="point"``): hovering previews, a click picks, Esc stops picking."""

    name = "Pick target"
    tip = "Click the target on the map (Esc cancels)"

    def __init__(self, host, controller: "StaticVeilController", kind: str = "token"):
        super().__init__(host)
        self.controller = controller
        self.kind = kind
        self.done = False

    def _token(self, p: Pointer) -> str | None:
        return self.host.picker().token_at(p.x, p.y, PICK_SLACK_PX * p.m_per_px)

    def hover(self, p: Pointer) -> None:
        if self.kind == "token":
            self.controller.hover_target(self._token(p))
        else:
            self.controller.hover_point(p.xy)

    def release(self, p: Pointer) -> None:
        if self.kind == "token":
            self.controller.pick_target(self._token(p))
        else:
            self.controller.pick_point(p.xy)

    def cancel(self) -> None:
        if not self.done:
            self.done = True
            self.controller.picking_cancelled()
        self.host.set_sketch(None)


class ManeuverPage(ActionPage):
    """The maneuver picker (:class:`ManeuverPanel`, which scrolls itself) as a page of the
    Action panel: Enter confirms the maneuver set up, Escape drops it (nothing changes)
    and, with none set up, closes the page."""

    title = "Static Veil maneuvers"

    def __init__(self, panel, controller: "StaticVeilController"):
        super().__init__(panel)
        self.controller = controller
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(controller.panel)
        controller.applied.connect(self.applied.emit)  # the panel then gives the map the focus

    def apply_default(self):
        p = self.controller.panel
        if p.confirm_btn.isVisible() and p.confirm_btn.isEnabled():
            return self.controller.confirm()
        return None

    def cancel(self) -> None:
        c = self.controller
        if c.key is not None or c.picking:
            c.cancel()
            return
        super().cancel()


class StaticVeilController(RuleGui):
    """The Static Veil GUI of one main window (installed only while the open encounter's
    ruleset is static-veil, :class:`gui.rules.base.RuleGuiHost`). ``actor``, ``key`` (the chosen maneuver),
    ``target``, ``dest`` (Move the Grapple) and ``choices`` make the action being set up;
    ``preview`` is the engine's answer for it. ``applied(change)`` fires after a maneuver
    or turn change lands on the undo stack."""

    applied = Signal(object)
    ruleset = RULESET_NAME
    window_attribute = "static_veil"

    def __init__(self, window):
        super().__init__(window)
        self.document = window.document
        self.selection = window.selection
        self.view = window.map_view
        self.active = False
        self.actor: str | None = None
        self.key: str | None = None
        self.target: str | None = None
        self.dest: tuple[float, float] | None = None
        self.choices: dict = {}
        self.options: tuple = ()
        self.preview = None
        self.hover_preview = None
        self.picking: str | None = None
        self._tool: PickTool | None = None
        self._hover_key = None
        self._marks_kept = Kept()  # each token's map mark, while the token is the same value

        self.panel = ManeuverPanel()
        # the maneuver picker is a page of the window's Action panel (beside the map)
        from gui.action_panel import action_panel

        self.page = self.add_page(ManeuverPage(action_panel(window), self))
        self.dock = self.page.panel.dock
        # the shared combat log (gui.combat_log): one batch of lines per maneuver, mirrored
        # from the encounter's saved Static Veil log; undone batches are struck through
        self.log = combat_log_for(window)
        self.rules = StaticVeilRules(window, self.log)
        self.rules.applied.connect(self.applied)
        self.layer = StaticVeilLayer(self.view.options, labels=self.view.tokens)
        self.add_layer(self.layer)
        self.layer.set_pixel_size(self.view.m_per_px())
        self._build_menu()

        p = self.panel
        p.chosen.connect(self.choose)
        p.pickRequested.connect(self.start_pick)
        p.choicesChanged.connect(self._choices_changed)
        p.outcomeChanged.connect(self._outcome_changed)
        p.confirmRequested.connect(self.confirm)
        p.cancelRequested.connect(self.cancel)
        p.startTurn.connect(lambda: self.start_turn(False))
        p.newRound.connect(lambda: self.start_turn(True))
        p.endTurn.connect(self.end_turn)
        #: spend Movement for Select-tool drags during a running turn (the system's ``on_moves``)
        self.listen(self.document.changed, self._on_document)
        self.listen(self.selection.changed, self._on_selection)
        self._sync_ruleset(force=True)

    # -- menu ----------------------------------------------------------------------------------
    def _build_menu(self) -> None:
        self.menu = self.add_menu("Static Veil")
        A = self.add_action
        A("Static Veil", "&Start turn of the selected token", lambda: self.start_turn(False), name="sv start turn")
        A("Static Veil", "&End turn", self.end_turn, name="sv end turn")
        A("Static Veil", "&New round with the selected token", lambda: self.start_turn(True), name="sv new round")
        self.menu.addSeparator()
        self.dice_group = QActionGroup(self)
        self.dice_group.setExclusive(True)
        self.dice_actions: dict[str, QAction] = {}
        for model, text in (("gm", "Dice: the GM enters outcomes"), ("d100", "Dice: the d100 model rolls")):
            act = A("Static Veil", text, lambda on, m=model: on and self.set_dice(m), checkable=True,
                    name=f"sv dice {model}")
            self.dice_group.addAction(act)
            self.dice_actions[model] = act
        self.menu.addSeparator()
        A("Static Veil", "&Cancel maneuver", self.cancel, name="sv cancel")
        A("Static Veil", "Export combat &log\u2026", lambda: self.window.combat_log_panel.export_dialog(),
          name="sv export log")

    # -- showing / hiding with the ruleset -------------------------------------------------------
    def _sync_ruleset(self, force: bool = False) -> None:
        on = self.document.encounter.ruleset == RULESET_NAME
        if on == self.active and not force:
            return
        self.active = on
        self.menu.menuAction().setVisible(on)
        self.layer.setVisible(on)
        if on:
            self.page.show_in_panel()
        else:
            self.page.close()
        self._reset_maneuver()
        if on:
            self.actor = self._selected_actor()
            self.refresh()
        else:
            self.actor = None
            self.layer.clear()

    def run_option(self, token_id: str, option):
        """The right-click menu's choice: start or end the token's turn, or set up the
        maneuver for it in the Action panel (a targeted one picks the targeted token)."""
        if not option.allowed or not self.active:
            return None
        if self.actor != token_id:
            self.selection.set_attacker(token_id)
            self.actor = token_id
            self._reset_maneuver()
            self.refresh()
        self.page.show_in_panel()
        if option.key == "start_turn":
            return self.start_turn(False)
        if option.key == "end_turn":
            return self.end_turn()
        target = next((t for t in self.selection.targets if t != token_id), None)
        if target is not None:
            self.target = target
        self.choose(option.key)
        return self.key

    def uninstall(self) -> None:
        """Leave the window (another rule system's encounter opened)."""
        if self.installed:
            self._stop_picking()
            self.layer.clear()
        super().uninstall()

    # -- events ----------------------------------------------------------------------------------
    def _on_document(self, change) -> None:
        if change.reset or self.active != (self.document.encounter.ruleset == RULESET_NAME):
            self._sync_ruleset(force=change.reset)
            return
        if not self.active:
            return
        enc = self.document.encounter
        if change.preview and change.diff.only_token_positions:
            # a drag in progress: move the marks with the tokens (cheap), ask the engine on landing
            self.layer.set_marks(*reposition(self.layer.marks, self.layer.links, enc))
            return
        if change.preview:
            self._update_marks()
            return
        ids = {t.id for t in enc.tokens}
        if self.actor not in ids:
            self.actor = None
            self._reset_maneuver()
        if self.target is not None and self.target not in ids:
            self.target = None
        self.refresh()

    # -- Movement spent by dragging (RuleSystem.on_moves, in the drag's own undo step) -------------
    def move_text(self, text: str, outcome) -> str:
        return f"{text}{MOVE_SUFFIX}"

    def moves_charged(self, before, outcome) -> None:
        """A drag during a running turn: each mover's walk into the log; what was spent or
        refused (the engine's reason) in the status bar."""
        for enc_before, change in outcome.detail or ():
            self.rules.add_log(len(self.rules.saved_log(enc_before)), change.log,
                               round=change.settings_after.round, detail=change)
        if outcome.notes:
            self.window.statusBar().showMessage("; ".join(outcome.notes), 10000)

    def _selected_actor(self) -> str | None:
        a = self.selection.attacker
        enc = self.document.encounter
        return a if a is not None and any(t.id == a for t in enc.tokens) else None

    def _on_selection(self) -> None:
        if not self.active or self.picking:
            return
        actor = self._selected_actor()
        if actor != self.actor:
            self.actor = actor
            self._reset_maneuver()
            if actor is not None:
                self.page.show_in_panel()
            self.refresh()
            return
        focus = self.selection.focus
        if focus and focus != self.actor and self.key is not None and self._needs_target(self.key) \
                and focus != self.target:
            self.target = focus
            self.refresh()

    # -- the action being set up -----------------------------------------------------------------
    def _reset_maneuver(self) -> None:
        self._stop_picking()
        self.key = None
        self.target = None
        self.dest = None
        self.choices = {}
        self.preview = None
        self.hover_preview = None

    def _option(self, key: str | None):
        for o in self.options:
            if o.key == key:
                return o
        return None

    def _needs_target(self, key: str) -> bool:
        o = self._option(key)
        return bool(o is not None and o.needs_target)

    def action(self, outcomes: dict | None = None, *, target: str | None = None, dest=None):
        """The engine action for what is set up (with ``outcomes``: the outcome fields the
        GM entered); None while a needed target or place is missing."""
        from engine.static_veil.actions import ACTION_BY_KEY

        key = self.key
        if key is None or key == MOVE or self.actor is None:
            return None
        cls = ACTION_BY_KEY[key]
        c = self.choices
        kw: dict = {"actor": self.actor}
        tgt = target if target is not None else self.target
        if self._needs_target(key):
            if tgt is None:
                return None
            kw["target"] = tgt
        if key in POINTED:
            to = dest if dest is not None else self.dest
            if to is None:
                return None
            kw["to"] = (float(to[0]), float(to[1]))
            kw["willing"] = bool(c.get("willing"))
        if key not in ("release", "stand_up") and c.get("modifier"):
            kw["modifiers"] = (("GM modifier", int(c["modifier"])),)
        if key in ("called_shot", "charge"):
            loc = c.get("location")
            if key == "called_shot" and loc is None:
                loc = "arm"
            if loc is not None:
                kw["location"] = loc
                if loc == "item":
                    kw["item_penalty"] = int(c.get("item_penalty", -20))
        if key == "shove":
            kw["run_up"] = bool(c.get("run_up"))
        if key == "takedown":
            kw["release"] = bool(c.get("release"))
        if key == "distraction":
            kw["approach"] = c.get("approach") or "feint"
        for k, v in (outcomes or {}).items():
            if k in cls.__dataclass_fields__:
                kw[k] = v
        return cls(**kw)

    # -- refreshing ------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Ask the engine again (options for the actor and target, the preview) and redraw
        the panel, the log and the map marks."""
        if not self.active:
            return
        enc = self.document.encounter
        settings = RULESET.settings(enc)
        self.dice_actions.get(settings.dice, self.dice_actions["gm"]).setChecked(True)
        self._update_marks()
        if self.actor is None:
            self.options = ()
            self.panel.show_actor(None, round_no=settings.round, active=_name(enc, settings.active) or None)
            self.panel.set_options((), None)
            self.layer.set_drawing(None)
            return
        sheet = RULESET.sheet(enc.token(self.actor))
        self.panel.show_actor(_name(enc, self.actor), sheet, RULESET.states(enc, self.actor), settings.round,
                              _name(enc, settings.active) or None, settings.active == self.actor)
        try:
            self.options = tuple(o.detail for o in self.system.actions(enc, self.actor, self.target) if o.detail is not None)
        except CoverfireError as exc:
            self.options = ()
            self.panel.show_message(str(exc), error=True)
        self.panel.set_options(self.options, self.key)
        self._refresh_detail()

    def _refresh_detail(self) -> None:
        enc = self.document.encounter
        key = self.key
        if key is None:
            self.preview = None
            self.panel.show_maneuver(None)
            self.layer.set_drawing(self._hover_drawing())
            return
        if key == MOVE:
            self._refresh_move()
            return
        opt = self._option(key)
        variants = ()
        if key == "charge":
            cs = self._option("called_shot")
            variants = cs.variants if cs is not None else ()
        elif opt is not None:
            variants = opt.variants
        needs_target = self._needs_target(key)
        if needs_target:
            target_text = (f"Target: <b>{_name(enc, self.target)}</b>" if self.target
                           else "<i>Click the target on the map</i>")
        elif key in POINTED:
            target_text = (f"To ({self.dest[0]:.1f}, {self.dest[1]:.1f}) m" if self.dest
                           else "<i>Click where to drag the grapple</i>")
        else:
            target_text = ""
        self.panel.show_maneuver(key, f"{opt.label if opt else key} \u2014 {_name(enc, self.actor)}",
                                 target_text=target_text, needs_pick=needs_target or key in POINTED,
                                 variants=variants, choices=self.choices)
        act = self.action()
        if act is None:
            self.preview = None
            self.panel.show_preview(None, "", None, awaiting="Pick on the map to see the preview.")
            self.layer.set_drawing(self._hover_drawing())
            return
        self.preview = self.system.preview(enc, act)
        opponent = self.preview.target or self.preview.partner
        self.panel.show_preview(self.preview, _name(enc, self.actor), _name(enc, opponent) or None,
                                dice=RULESET.settings(enc).dice)
        self._draw_preview()

    def _refresh_move(self) -> None:
        enc = self.document.encounter
        text = (f"To ({self.dest[0]:.1f}, {self.dest[1]:.1f}) m" if self.dest
                else "<i>Click where to walk</i>")
        self.panel.show_maneuver(MOVE, f"Move \u2014 {_name(enc, self.actor)}", target_text=text, needs_pick=True)
        if self.dest is None:
            self.preview = None
            self.panel.show_preview(None, "", None, awaiting="Pick on the map to see the way.")
            self.layer.set_drawing(self._hover_drawing())
            return
        self.preview = self.system.preview(enc, Move(self.actor, tuple(self.dest)))
        self.panel.show_preview(self.preview, _name(enc, self.actor), None, dice=RULESET.settings(enc).dice)
        self._draw_preview()

    def _draw_preview(self) -> None:
        if self.preview is None:
            self.layer.set_drawing(self._hover_drawing())
            return
        form = self.panel.outcome
        self.layer.set_drawing(drawing_for(self.preview, self.document.encounter,
                                           net_hits=form.entered_net_hits(), actor_wins=form.actor_wins()))

    def _hover_drawing(self):
        if self.hover_preview is None:
            return None
        return drawing_for(self.hover_preview, self.document.encounter, hover=True)

    def _update_marks(self) -> None:
        marks, links = marks_for(self.document.encounter, RULESET, self._marks_kept)
        self.layer.set_marks(marks, links)

    def _choices_changed(self) -> None:
        self.choices = self.panel.choices()
        self._refresh_detail()

    def _outcome_changed(self) -> None:
        self.panel.update_buttons(self.preview, RULESET.settings(self.document.encounter).dice)
        self._draw_preview()

    # -- choosing and picking --------------------------------------------------------------------
    def choose(self, key: str) -> None:
        """Set up maneuver ``key`` for the actor: a targeted one without a target starts
        picking on the map."""
        if not self.active or self.actor is None:
            return
        opt = self._option(key)
        if opt is None and key != MOVE:
            return
        if opt is not None and not opt.allowed and key != self.key:
            self.panel.show_message(opt.reason or "not possible now", error=True)
            self.panel.set_options(self.options, self.key)
            return
        if key != self.key:
            self.choices = {}
            self.dest = None
        self.key = key
        self.panel.show_message("")
        self.hover_preview = None
        self.refresh()
        if self._needs_target(key) and self.target is None:
            self.start_pick()
        elif key in POINTED and self.dest is None:
            self.start_pick()

    def start_pick(self) -> None:
        """Let the GM click the target (or the place, for Move the Grapple) on the map."""
        if self.key is None:
            return
        kind = "point" if self.key in POINTED else "token"
        self._stop_picking()
        self.picking = kind
        self._tool = PickTool(self.view, self, kind)
        self.view.set_tool(self._tool)
        self.view.setFocus()  # so that Esc reaches the map (and cancels the picking)
        what = "where to drag the grapple" if kind == "point" else "the target"
        self.window.statusBar().showMessage(f"{self._label()}: click {what} on the map (Esc cancels)", 10000)
        self.panel.show_message(f"Click {what} on the map.")

    def _label(self) -> str:
        if self.key == MOVE:
            return "Move"
        o = self._option(self.key)
        return o.label if o is not None else (self.key or "")

    def _stop_picking(self) -> None:
        tool = self._tool
        self._tool = None
        self.picking = None
        self.hover_preview = None
        self._hover_key = None
        if tool is not None and not tool.done:
            tool.done = True
            if self.view.tool is tool and "Select" in self.window.tools:
                self.window.set_tool("Select")

    def picking_cancelled(self) -> None:
        """Esc or another tool while picking: stop; a maneuver still without its target
        is dropped."""
        self._tool = None
        self.picking = None
        self.hover_preview = None
        if self.key is not None and ((self._needs_target(self.key) and self.target is None)
                                     or (self.key in POINTED and self.dest is None)):
            self.key = None
        self.panel.show_message("")
        self.refresh()

    def pick_target(self, token_id: str | None) -> None:
        """The GM clicked ``token_id`` (None: empty map) as the maneuver's target."""
        if self.picking != "token":
            return
        if token_id is None:
            self.window.statusBar().showMessage("Click a token: that is empty map", 4000)
            return
        if token_id == self.actor:
            self.window.statusBar().showMessage(f"{_name(self.document.encounter, token_id)} cannot target itself", 4000)
            return
        self.target = token_id
        self._stop_picking()
        self.panel.show_message("")
        self.refresh()

    def pick_point(self, xy) -> None:
        if self.picking != "point":
            return
        self.dest = (float(xy[0]), float(xy[1]))
        self._stop_picking()
        self.panel.show_message("")
        self.refresh()

    def hover_target(self, token_id: str | None) -> None:
        """While picking: preview the maneuver against the token under the mouse."""
        if self.picking != "token" or token_id == self._hover_key:
            return
        self._hover_key = token_id
        self.hover_preview = None
        if token_id is not None and token_id != self.actor:
            act = self.action(target=token_id)
            if act is not None:
                self.hover_preview = self.system.preview(self.document.encounter, act)
                self.window.statusBar().showMessage(
                    f"{self._label()} {_name(self.document.encounter, token_id)}: "
                    + ("click to choose" if self.hover_preview.allowed else self.hover_preview.reason or ""), 6000)
        self.layer.set_drawing(self._hover_drawing())

    def hover_point(self, xy) -> None:
        if self.picking != "point":
            return
        key = (round(xy[0], 1), round(xy[1], 1))
        if key == self._hover_key:
            return
        self._hover_key = key
        if self.key == MOVE:
            self.hover_preview = self.system.preview(self.document.encounter, Move(self.actor, tuple(xy)))
        else:
            act = self.action(dest=xy)
            self.hover_preview = self.system.preview(self.document.encounter, act) if act is not None else None
        self.layer.set_drawing(self._hover_drawing())

    def cancel(self) -> None:
        """Drop the maneuver being set up (the actor stays selected)."""
        self._reset_maneuver()
        self.panel.show_message("")
        self.refresh()

    # -- landing ---------------------------------------------------------------------------------
    def confirm(self, roll: bool = False) -> bool:
        """Apply the maneuver with the entered outcomes (``roll``: only what was entered,
        the dice model rolls the rest) as one undo step. Returns whether it landed."""
        if self.key is None or self.preview is None:
            return False
        outcomes = self.panel.outcome.values()
        if not roll:
            missing = self.panel.outcome.missing() if self.panel.outcome.has_tests else None
            if missing:
                self.panel.show_message(f"Enter {missing} first.", error=True)
                return False
        act = self.action(outcomes)
        enc = self.document.encounter
        try:
            if self.key == MOVE:
                act = Move(self.actor, self.preview.path[-1], tuple(self.preview.path))
            outcome = self.system.apply(enc, act)
        except IllegalActionError as exc:  # OutcomeNeededError too: its reason says what to enter
            self.panel.show_message(exc.reason if hasattr(exc, "reason") else str(exc), error=True)
            return False
        except CoverfireError as exc:
            self.panel.show_message(str(exc), error=True)
            return False
        ch = outcome.detail
        who = _name(enc, ch.actor)
        text = f"{ch.label}: {who}" + (f" \u2192 {_name(enc, ch.target)}" if ch.target else "")
        self._reset_maneuver()
        self.rules.land(outcome, text)
        self.panel.show_message(ch.summary)
        return True

    def start_turn(self, new_round: bool = False) -> bool:
        """Begin the selected token's turn (``new_round``: count the round up first)."""
        if not self.active or self.actor is None:
            return False
        enc = self.document.encounter
        outcome = self.system.apply(enc, StartTurn(self.actor, new_round))
        who = _name(enc, self.actor)
        self.rules.land(outcome, f"New round: {who}'s turn" if new_round else f"Start {who}'s turn")
        return True

    def end_turn(self) -> bool:
        """End the turn of the token whose turn it is (else of the selected token)."""
        if not self.active:
            return False
        enc = self.document.encounter
        who = RULESET.settings(enc).active or self.actor
        if who is None:
            return False
        self.rules.land(self.system.apply(enc, EndTurn(who)), f"End {_name(enc, who)}'s turn")
        return True

    def set_dice(self, model: str) -> None:
        """Switch the encounter's dice model ("gm" or "d100"), as one undo step."""
        if not self.active:
            return
        enc = self.document.encounter
        settings = RULESET.settings(enc)
        if settings.dice == model:
            return
        new = enc.with_rules("static-veil", settings.model_copy(update={"dice": model}))
        self.document.commit(new, "Dice: the d100 model rolls" if model == "d100" else "Dice: the GM enters outcomes")
