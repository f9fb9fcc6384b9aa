"""Initiative, passes and Action Phases of a Combat Turn (seed 000, sr5-facts.md).

- Initiative = Reaction + Intuition (+ bonus) + wound modifier + Nd6 (N = 1..5). Each pass
  ends by subtracting 10 from every score; those still above 0 act again. Order: highest
  score first, ties by Edge, then Reaction, then Intuition, then the GM's ``Settings.order``
  (then the tokens' order in the file).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.errors import IllegalActionError
from engine.model import Encounter
from engine.sr5 import condition
from engine.sr5.changes import Change, Edit, settings_of, sheet_of
from engine.sr5.dice import Roller, check_faces, default_roller
from engine.names import name_of as _name
from engine.sr5.economy import in_combat, log_entry
from engine.sr5.edge import BLITZ_DICE
from engine.sr5.sheet import PhaseUse, RollRecord, Settings, Sheet


def initiative_base(sheet: Sheet, settings: Settings | None = None) -> int:
    """Reaction + Intuition + bonus + wound modifier: the Initiative before dice."""
    opts = (settings or Settings()).options
    return sheet.reaction + sheet.intuition + sheet.initiative_bonus + condition.wound_modifier(sheet, opts)


def participants(encounter: Encounter) -> tuple[str, ...]:
    """Tokens in the fight: those with an sr5 sheet (all tokens when none has one)."""
    with_sheet = tuple(t.id for t in encounter.tokens if t.rules.get("sr5") is not None)
    return with_sheet or tuple(t.id for t in encounter.tokens)


def _order_key(encounter: Encounter, settings: Settings, tid: str):
    s = sheet_of(encounter.token(tid))
    pref = settings.order.index(tid) if tid in settings.order else len(settings.order)
    file_pos = next(i for i, t in enumerate(encounter.tokens) if t.id == tid)
    seized = s.seized_turn is not None and s.seized_turn == settings.turn  # Seize the Initiative: first
    return (not seized, -(s.initiative or 0), -s.edge, -s.reaction, -s.intuition, pref, file_pos)


def action_order(encounter: Encounter) -> tuple[str, ...]:
    """Who still acts in this pass, in order (the token now acting first)."""
    st = settings_of(encounter)
    if not in_combat(st):
        return ()
    ids = [
        t.id
        for t in encounter.tokens
        if t.id not in st.acted
        and t.rules.get("sr5") is not None
        and (t.rules["sr5"].initiative or 0) > 0
        and condition.can_act(t.rules.get("sr5"))
    ]
    ids.sort(key=lambda i: (i != st.acting, _order_key(encounter, st, i)))
    return tuple(ids)


def initiative_order(encounter: Encounter) -> tuple[str, ...]:
    """Every token with an Initiative Score, best first (for the tracker), acted or not."""
    st = settings_of(encounter)
    ids = [t.id for t in encounter.tokens if sheet_of(t).initiative is not None and t.rules.get("sr5") is not None]
    return tuple(sorted(ids, key=lambda i: _order_key(encounter, st, i)))


def start_turn(
    encounter: Encounter,
    dice: Roller | None = None,
    *,
    entered: Mapping[str, Sequence[int] | int] | None = None,
    who: Sequence[str] | None = None,
) -> tuple[Encounter, Change]:
    """Begin the next Combat Turn: roll (or take typed) initiative for every participant.

    ``entered[token]`` is either the faces of its initiative dice (exactly
    ``initiative_dice`` of them) or a whole Initiative Score typed by the GM; the others are
    rolled with ``dice`` (a seeded roller from ``Settings.seed`` when None). Resets the
    turn's movement, running, Full Defense; ends suppressive fire of earlier turns."""
    entered = dict(entered or {})
    edit = Edit(encounter)
    st = edit.settings
    roller = dice or default_roller(st)
    ids = tuple(who) if who is not None else participants(encounter)
    for k in entered:
        encounter.token(k)  # unknown ids fail here
    turn = st.turn + 1
    edit.update_settings(
        turn=turn,
        initiative_pass=1,
        acting=None,
        acted=(),
        free_spent=(),
        phase=PhaseUse(),
        suppressions=tuple(s for s in st.suppressions if s.turn >= turn),
    )
    st = edit.settings
    scores = {}
    for tid in ids:
        sh = edit.sheet(tid)
        b = initiative_base(sh, st)
        ndice = BLITZ_DICE if sh.blitz_turn == turn else sh.initiative_dice
        parts = (
            ("Reaction", sh.reaction),
            ("Intuition", sh.intuition),
            ("initiative bonus", sh.initiative_bonus),
            ("wounds", condition.wound_modifier(sh, st.options)),
        )
        given = entered.get(tid)
        if isinstance(given, bool):
            raise IllegalActionError(f"initiative for {_name(encounter, tid)}: {given!r} is not a score or dice",
                                     ids=(tid,))
        if isinstance(given, int):
            faces: tuple[int, ...] = ()
            score = given
            how = "entered"
        else:
            if given is not None:
                faces = check_faces(given, what=f"initiative dice of {_name(encounter, tid)}")
                if len(faces) != ndice:
                    raise IllegalActionError(
                        f"{_name(encounter, tid)} rolls {ndice}D6 initiative: enter {ndice} dice, not {len(faces)}",
                        ids=(tid,),
                    )
                how = "dice entered"
            else:
                faces = roller.roll(ndice)
                how = "rolled"
            score = b + sum(faces)
        scores[tid] = score
        edit.update_sheet(
            tid, initiative=score, moved=0.0, running=False, sprinting=False, sprint_metres=0.0, full_defense=False, defended=0,
            lucky_cover=False,
        )
        rec = RollRecord(
            label=f"Initiative {_name(encounter, tid)}",
            pool=ndice,
            parts=parts,
            dice=tuple(faces),
            entered=how != "rolled",
        )
        edit.log(
            log_entry(st, tid, "initiative", f"{_name(encounter, tid)}: Initiative {b} + {ndice}D6{' (Blitz)' if ndice != sh.initiative_dice else ''} "
                      f"{list(faces) if faces else ''} = {score} ({how})", [rec])
        )
    edit.details["initiative"] = scores
    _start_next_phase(edit, encounter)
    new, ch = edit.finish(f"Combat Turn {turn}: initiative")
    return new, ch


def _current(edit: Edit, encounter: Encounter):
    """An encounter view with the edit's pending sheets (for ordering)."""
    tokens = tuple(edit.token(t.id) for t in encounter.tokens)
    return encounter.model_copy(update={"tokens": tokens}).with_rules("sr5", edit.settings)


def _start_next_phase(edit: Edit, encounter: Encounter) -> None:
    """Hand the phase to the next actor of this pass, or end the pass (-10) or the turn."""
    for _ in range(200):  # passes; bounded for safety
        cur = _current(edit, encounter)
        st = edit.settings
        order = [i for i in action_order(cur) if i != st.acting]
        if order:
            nxt = order[0]
            edit.update_settings(acting=nxt, phase=PhaseUse(free=1 if nxt in st.free_spent else 0))
            edit.update_sheet(nxt, defended=0)
            edit.log(log_entry(edit.settings, nxt, "phase", f"Pass {st.initiative_pass}: {_name(encounter, nxt)} acts "
                               f"(Initiative {edit.sheet(nxt).initiative})"))
            return
        # end of the pass: everyone -10
        for t in cur.tokens:
            sh = sheet_of(t)
            if t.rules.get("sr5") is not None and sh.initiative is not None:
                edit.update_sheet(t.id, initiative=sh.initiative - 10)
        cur = _current(edit, encounter)
        anyone = any(
            t.rules.get("sr5") is not None and (sheet_of(t).initiative or 0) > 0 and condition.can_act(sheet_of(t)) for t in cur.tokens
        )
        if not anyone:
            ended = tuple(s for s in st.suppressions if s.turn <= st.turn)
            edit.update_settings(
                acting=None, initiative_pass=0, acted=(), free_spent=(), phase=PhaseUse(),
                suppressions=tuple(s for s in st.suppressions if s.turn > st.turn),
            )
            text = f"Combat Turn {st.turn} ends"
            if ended:
                text += "; suppressive fire ends: " + ", ".join(s.zone for s in ended)
            edit.log(log_entry(edit.settings, None, "turn", text))
            edit.prompts.append("The Combat Turn is over: roll initiative for the next one.")
            return
        edit.update_settings(initiative_pass=st.initiative_pass + 1, acted=(), free_spent=(), acting=None, phase=PhaseUse())
        edit.log(log_entry(edit.settings, None, "pass", f"Initiative Pass {edit.settings.initiative_pass} begins (-10)"))


def end_phase(encounter: Encounter) -> tuple[Encounter, Change]:
    """End the acting token's Action Phase and give the next one its phase (or end the pass,
    subtracting 10 from every score, or end the turn). A phase spent without firing resets
    progressive recoil (``Options.recoil_reset_by_idle_phase``)."""
    st = settings_of(encounter)
    if not in_combat(st):
        raise IllegalActionError("no Combat Turn is running: roll initiative first")
    edit = Edit(encounter)
    actor = st.acting
    if actor is not None:
        sh = edit.sheet(actor)
        if st.options.recoil_reset_by_idle_phase and not st.phase.attacked and sh.recoil:
            edit.update_sheet(actor, recoil=0)
        free_spent = st.free_spent + ((actor,) if st.phase.free and actor not in st.free_spent else ())
        edit.update_settings(acted=st.acted + (actor,), free_spent=free_spent)
    _start_next_phase(edit, encounter)
    label = f"End of {_name(encounter, actor)}'s phase" if actor else "Next phase"
    return edit.finish(label)


def log_text(encounter: Encounter) -> str:
    """The combat log as plain text (for export): one line per entry, then each roll's pool
    breakdown, dice and hits indented below it."""
    lines = [ln for e in settings_of(encounter).log for ln in log_entry_lines(e)]
    return "\n".join(lines) + ("\n" if lines else "")


def log_entry_lines(e) -> list[str]:
    """One log entry's lines: ``[T1.2] text``, then each roll's pool, dice and hits."""
    head = f"[T{e.turn}.{e.initiative_pass}] " if e.turn else ""
    lines = [head + e.text]
    for r in e.rolls:
        parts = " ".join(f"{lbl} {v:+d}" for lbl, v in r.parts)
        lim = f" [limit {r.limit}]" if r.limit is not None else ""
        dice = " ".join(str(d) for d in r.dice)
        extra = " (entered)" if r.entered else ""
        lines.append(f"    {r.label}: {parts} = {r.pool}{lim}; dice {dice or '-'}{extra} -> {r.hits} hits"
                     + (" GLITCH" if r.glitch and not r.critical_glitch else "")
                     + (" CRITICAL GLITCH" if r.critical_glitch else ""))
    return lines
