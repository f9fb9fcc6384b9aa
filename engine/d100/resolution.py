"""Resolving d100 actions (seed 003): a dice source in, a :class:`~engine.d100.values.Change`
out (every die, every shot through cover and armour, severity steps and their effects, log
lines), as the ``detail`` of an :class:`~engine.rules.Outcome`.

:class:`Resolution` is a base of :class:`engine.d100.system.D100`; it calls the checks of
:class:`~engine.d100.legality.Legality` through ``self``.
"""

from __future__ import annotations

from engine.d100 import effects as fx
from engine.d100.actions import (
    Action,
    Aim,
    ChangeStance,
    EndTurn,
    Fire,
    FireTwoPistols,
    Melee,
    Recover,
    RestWeapon,
    StartRound,
    SwitchWeapon,
    TargetSpec,
)
from engine.d100.dice import Dice, RandomDice, Recorder, SeededDice
from engine.d100.sheet import LOCATIONS, SEVERITIES, D100Weapon, LogEntry, Sheet, Wound, parse_dice
from engine.d100.values import (
    MAP_STANCE,
    STANCE_LABELS,
    Chance,
    Change,
    DamageResult,
    Event,
    RecoverResult,
    ShotResult,
    TokenChange,
    heal_bonus,
    roll_dice,
    actions_per_round,
    arms_of,
    location_for,
    place_roll,
    seeded_source,
    settings_of,
    sheet_of,
    step_for,
)
from engine.model import Encounter, Token
from engine.names import token_name
from engine.rules import Outcome


class _Work:
    """Sheets and stances being changed while one action resolves, plus log and events."""

    def __init__(self, encounter: Encounter, rec: Recorder) -> None:
        self.enc = encounter
        self.settings = settings_of(encounter)
        self.rec = rec
        self.sheets: dict[str, Sheet] = {}
        self.stances: dict[str, str] = {}
        self.events: list[Event] = []
        self.log: list[LogEntry] = []

    def token(self, ident: str) -> Token:
        return self.enc.token(ident)

    def sheet(self, ident: str) -> Sheet:
        if ident not in self.sheets:
            self.sheets[ident] = sheet_of(self.token(ident))
        return self.sheets[ident]

    def put(self, ident: str, **update) -> Sheet:
        s = self.sheet(ident).model_copy(update=update)
        self.sheets[ident] = s
        return s

    def map_stance(self, ident: str) -> str:
        return self.stances.get(ident, self.token(ident).stance)

    def set_stance(self, ident: str, stance: str) -> None:
        self.put(ident, stance=stance)
        self.stances[ident] = MAP_STANCE[stance]

    def event(self, token: str, kind: str, text: str, location: str | None = None,
              amount: int | None = None) -> Event:
        e = Event(token, kind, text, location, amount)
        self.events.append(e)
        if kind != "severity":
            self.log.append(LogEntry(round=self.settings.round, actor=None, target=token,
                                     kind=kind, text="    " + text))
        return e

    def say(self, text: str, kind: str, actor: str | None = None, target: str | None = None) -> None:
        self.log.append(LogEntry(round=self.settings.round, actor=actor, target=target,
                                 kind=kind, text=text))

    def name(self, ident: str) -> str:
        t = self.token(ident)
        return token_name(t)

    # -- state changes with their seed meaning ------------------------------------------------
    def add_injury(self, ident: str, points: int, why: str) -> list[Event]:
        if points <= 0:
            return []
        s = self.sheet(ident)
        self.put(ident, injury=s.injury + points)
        return self.check_death(ident, why)

    def check_death(self, ident: str, why: str) -> list[Event]:
        s = self.sheet(ident)
        if not s.dead and s.injury > s.max_injury:
            self.put(ident, dead=True, actions_left=0 if s.actions_left is not None else None)
            return [self.event(ident, "dead", f"{self.name(ident)} dies: injury {s.injury} exceeds "
                               f"the maximum {s.max_injury} ({why})", amount=s.injury)]
        return []

    def stun(self, ident: str, why: str) -> list[Event]:
        s = self.sheet(ident)
        if s.dead:
            return []
        if self.settings.round > 0 and not s.acted and not s.turn_done:
            self.put(ident, actions_left=0, turn_done=False)
            return [self.event(ident, "stun", f"{self.name(ident)} is stunned ({why}) and loses "
                               "this round's turn")]
        self.put(ident, stunned=max(s.stunned, 1))
        return [self.event(ident, "stun", f"{self.name(ident)} is stunned ({why}): loses the next turn")]

    def fall_prone(self, ident: str, why: str) -> list[Event]:
        if self.sheet(ident).stance == "prone":
            return []
        self.set_stance(ident, "prone")
        return [self.event(ident, "prone", f"{self.name(ident)} falls prone ({why})")]

    def lose_aim(self, ident: str, why: str) -> list[Event]:
        s = self.sheet(ident)
        if s.aim_level == 0 and s.aim_target is None:
            return []
        self.put(ident, aim_level=0, aim_target=None)
        return [self.event(ident, "aim_lost", f"{self.name(ident)} loses aim ({why})")]

    def drop(self, ident: str, arm: str, why: str) -> list[Event]:
        """Drop whatever ``arm`` holds."""
        s = self.sheet(ident)
        out = []
        if s.weapon is not None and arm in arms_of(s, "main"):
            self.put(ident, weapon=None, dropped=(*s.dropped, s.weapon), rested=False)
            out.append(self.event(ident, "drop", f"{self.name(ident)} drops {s.weapon} ({why})", arm))
            out += self.lose_aim(ident, "dropped the weapon")
        s = self.sheet(ident)
        if s.offhand is not None and arm in arms_of(s, "off"):
            self.put(ident, offhand=None, dropped=(*s.dropped, s.offhand))
            out.append(self.event(ident, "drop", f"{self.name(ident)} drops {s.offhand} ({why})", arm))
        return out

    def holds_with(self, ident: str, arm: str) -> bool:
        s = self.sheet(ident)
        return (s.weapon is not None and arm in arms_of(s, "main")) or (
            s.offhand is not None and arm in arms_of(s, "off"))

    def pass_out_check(self, ident: str, why: str) -> list[Event]:
        s = self.sheet(ident)
        if s.dead or s.unconscious:
            return []
        chance = self.settings.pass_out_chance
        roll = self.rec.d100("pass out", ident)
        if roll > chance:
            return [self.event(ident, "pass_out", f"{self.name(ident)} stays conscious ({why}): "
                               f"rolled {roll} against {chance}%", amount=0)]
        self.put(ident, unconscious=True, actions_left=0 if s.actions_left is not None else None)
        out = [self.event(ident, "pass_out", f"{self.name(ident)} passes out from system shock ({why}): "
                          f"rolled {roll} against {chance}%", amount=1)]
        out += self.fall_prone(ident, "passed out")
        return out


class Resolution:
    """The applying half of :class:`~engine.d100.system.D100`."""

    # -- applying -------------------------------------------------------------------------------
    def dice_for(self, encounter: Encounter) -> Dice:
        """The encounter's default dice: its seeded sequence if ``Settings.seed`` is set, else
        fresh random dice."""
        st = settings_of(encounter)
        if st.seed is not None:
            return SeededDice(st.seed, st.rolls)
        return RandomDice()

    def apply(self, encounter: Encounter, action: Action, dice: Dice | None = None) -> Outcome[Change]:
        """Resolve a legal ``action`` with ``dice`` (default :meth:`dice_for`); raises
        :class:`IllegalActionError` when it is not legal. The outcome's ``detail`` is the
        :class:`Change`."""
        self.check(encounter, action)
        rec = Recorder(dice if dice is not None else self.dice_for(encounter))
        w = _Work(encounter, rec)
        shots: list[ShotResult] = []
        recover: RecoverResult | None = None
        a = action
        if isinstance(a, StartRound):
            self._start_round(w)
        elif isinstance(a, EndTurn):
            self._end_turn(w, a.actor)
        else:
            if not (isinstance(a, RestWeapon) and not a.rest):
                self._spend(w, a.actor)
            if isinstance(a, Aim):
                self._aim(w, a)
            elif isinstance(a, ChangeStance):
                w.lose_aim(a.actor, "changed stance")
                w.set_stance(a.actor, a.stance)
                w.say(f"{w.name(a.actor)} takes the stance {STANCE_LABELS[a.stance]}", "stance", a.actor)
            elif isinstance(a, (Fire, FireTwoPistols)):
                shots = self._fire(w, a)
            elif isinstance(a, Melee):
                w.lose_aim(a.actor, "melee attack")
                shots = [self._melee(w, a)]
            elif isinstance(a, Recover):
                w.lose_aim(a.actor, "recover")
                recover = self._recover(w, a)
            elif isinstance(a, RestWeapon):
                if a.rest:
                    w.lose_aim(a.actor, "rested the weapon")
                    w.put(a.actor, rested=True)
                    w.say(f"{w.name(a.actor)} rests the weapon (+{w.settings.rest_bonus}%)", "rest", a.actor)
                else:
                    w.put(a.actor, rested=False)
                    w.say(f"{w.name(a.actor)} unrests the weapon", "rest", a.actor)
            elif isinstance(a, SwitchWeapon):
                self._switch(w, a)
        change = self._finish(encounter, a, w, tuple(shots), recover)
        return Outcome.of(encounter, change.encounter, a.label, log=[e.text for e in change.log], detail=change)

    def _finish(self, enc: Encounter, action, w: _Work, shots, recover) -> Change:
        st_before = enc.rules.get("d100")
        st = w.settings
        seeded = seeded_source(w.rec.source)
        if seeded is not None and st.seed is not None:
            st = st.model_copy(update={"rolls": seeded.position})
        st = st.model_copy(update={"log": (*st.log, *w.log)})
        changes = []
        new_tokens = []
        for tok in enc.tokens:
            if tok.id in w.sheets or tok.id in w.stances:
                sheet = w.sheets.get(tok.id, sheet_of(tok))
                stance = w.stances.get(tok.id, tok.stance)
                changes.append(TokenChange(tok.id, tok.rules.get("d100"), sheet, tok.stance, stance))
                tok = tok.model_copy(update={"stance": stance}).with_rules("d100", sheet)
            new_tokens.append(tok)
        new = enc.model_copy(update={"tokens": tuple(new_tokens)}).with_rules("d100", st)
        return Change(action, new, tuple(changes), st_before, st, tuple(w.rec.rolls), shots,
                      recover, tuple(w.events), tuple(w.log))

    # -- the actions ----------------------------------------------------------------------------
    def _spend(self, w: _Work, actor: str) -> None:
        s = w.sheet(actor)
        if w.settings.round > 0 and s.actions_left is not None:
            w.put(actor, actions_left=s.actions_left - 1, acted=True)
        else:
            w.put(actor, acted=True)

    def _start_round(self, w: _Work) -> None:
        st = w.settings
        if st.round > 0:
            for tok in w.enc.tokens:
                if not w.sheet(tok.id).turn_done:
                    self._end_turn(w, tok.id, quiet=True)
        rnd = st.round + 1
        w.settings = st.model_copy(update={"round": rnd})
        w.say(f"Round {rnd} begins", "round")
        rows = []
        for n, tok in enumerate(w.enc.tokens):
            s = w.sheet(tok.id)
            if s.dead or s.unconscious:
                acts = 0
            elif s.stunned > 0:
                acts = 0
                w.put(tok.id, stunned=s.stunned - 1)
                w.event(tok.id, "lost_turn", f"{w.name(tok.id)} is stunned and loses this turn")
            else:
                acts = actions_per_round(s, st)
            w.put(tok.id, actions_left=acts, turn_done=False, acted=False, moved=0.0)
            rows.append((-acts, -s.speed, n, tok.id))
        order = tuple(r[3] for r in sorted(rows))
        w.settings = w.settings.model_copy(update={"order": order})

    def _end_turn(self, w: _Work, actor: str, quiet: bool = False) -> None:
        s = w.sheet(actor)
        total = 0
        if not s.dead:
            for loc in LOCATIONS:
                n = s.wound(loc).bleeding
                if n:
                    rolls = w.rec.dice(n, 3, "bleed", actor)
                    total += sum(rolls)
                    w.event(actor, "bleeding", f"{w.name(actor)} bleeds from the "
                            f"{loc.replace('_', ' ')}: {'+'.join(map(str, rolls))} = {sum(rolls)}",
                            loc, sum(rolls))
            if total:
                w.add_injury(actor, total, "bleeding")
        upd = {"turn_done": True}
        if w.settings.round > 0:
            upd["actions_left"] = 0
        w.put(actor, **upd)
        if not quiet or total:
            w.say(f"{w.name(actor)} ends the turn" + (f", bleeding {total}" if total else ""),
                  "end_turn", actor)

    def _aim(self, w: _Work, a: Aim) -> None:
        s = w.sheet(a.actor)
        st = w.settings
        if s.aim_target != a.target:
            if s.aim_target is not None:
                w.lose_aim(a.actor, "changed target")
            level = 1
        else:
            level = s.aim_level + 1
        w.put(a.actor, aim_target=a.target, aim_level=level)
        bonus = min(st.aim_max, st.aim_step * level)
        w.say(f"{w.name(a.actor)} aims at {w.name(a.target)} (+{bonus}%)", "aim", a.actor, a.target)

    def _fire(self, w: _Work, a) -> list[ShotResult]:
        enc, st = w.enc, w.settings
        s0 = w.sheet(a.actor)
        plan = self._plan(enc, a)
        aim_target = s0.aim_target
        results: list[ShotResult] = []
        label = {"single": "fires", "semi": "fires semi-automatic", "auto": "fires full auto"}
        for wpn, slot, mode, t, n, two in plan:
            chances = self.shot_chances(enc, a.actor, wpn, slot, mode, t, n, a.modifiers, two)
            w.say(f"{w.name(a.actor)} {label[mode]} {wpn.name} at {w.name(t.id)} "
                  f"({n} shot{'s' if n != 1 else ''}, {chances[0].text()})", "fire", a.actor, t.id)
            for i, ch in enumerate(chances):
                if w.sheet(t.id).dead:
                    w.say(f"  {n - i} more shot{'s' if n - i != 1 else ''} at {w.name(t.id)} "
                          "not rolled: already dead", "miss", a.actor, t.id)
                    break
                results.append(self._shot(w, a.actor, t, wpn, ch, i + 1, melee=False))
        # aim: kept only by single shots at the aimed target
        keep = all(mode == "single" and t.id == aim_target for _, _, mode, t, _, _ in plan)
        if not keep:
            why = "fired at another target" if all(m == "single" for _, _, m, _, _, _ in plan) else (
                "semi-automatic fire" if plan[0][2] == "semi" else "full-auto fire")
            w.lose_aim(a.actor, why)
        return results

    def _shot(self, w: _Work, actor: str, t: TargetSpec, wpn: D100Weapon, ch: Chance, index: int,
              melee: bool, parry: Chance | None = None) -> ShotResult:
        roll = w.rec.d100("hit", actor)
        hit = ch.succeeds(roll)
        auto = ch.automatic(roll)
        verb = "blow" if melee else "shot"
        if not hit:
            w.say(f"  {verb} {index}: rolled {roll} vs {ch.value}% - miss"
                  + (" (96-100 always fails)" if auto == "failure" else ""), "miss", actor, t.id)
            return ShotResult(actor, t.id, wpn.name, index, ch, roll, False, auto, prefer=t.prefer)
        prow = None
        parried = False
        if parry is not None:
            prow = w.rec.d100("parry", t.id)
            parried = parry.succeeds(prow)
            if parried:
                w.say(f"  {verb} {index}: rolled {roll} vs {ch.value}% - hit, parried by "
                      f"{w.name(t.id)} ({prow} vs {parry.value}%)", "parry", actor, t.id)
                return ShotResult(actor, t.id, wpn.name, index, ch, roll, True, auto, prefer=t.prefer,
                                  parry_chance=parry, parry_roll=prow, parried=True)
        placed = ch.placed(roll)
        lroll = w.rec.d100("location", actor)
        proll = place_roll(lroll, t.prefer, w.settings) if placed else lroll
        loc = location_for(proll, w.settings)
        hidden, _, cover = self._hidden_for(w.enc, t)
        loc_text = (f"placed: location roll {lroll} moved to {proll} toward {t.prefer.replace('_', ' ')}"
                    if placed else f"location roll {lroll}")
        w.say(f"  {verb} {index}: rolled {roll} vs {ch.value}% - hit"
              + (" (1-5 always succeeds)" if auto == "success" else "")
              + (f", parry failed ({prow} vs {parry.value}%)" if parry is not None else "")
              + f"; {loc_text}: {loc.replace('_', ' ')}"
              + (" (hidden behind cover)" if loc in hidden else ""), "hit", actor, t.id)
        raw = roll_dice(w.rec, wpn.damage, "damage", actor)
        dmg = self._damage(w, t.id, loc, raw, loc in hidden, cover)
        w.lose_aim(t.id, "was hit")
        return ShotResult(actor, t.id, wpn.name, index, ch, roll, True, auto, placed, t.prefer, lroll,
                          proll, loc, parry, prow, False, dmg)

    def _damage(self, w: _Work, target: str, loc: str, raw: int, hidden: bool, cover: int) -> DamageResult:
        """Damage ``raw`` points at ``loc``: cover (if hidden), then armour (wear when pierced),
        then location and injury total, severity steps and their effects."""
        st = w.settings
        s = w.sheet(target)
        injury_before = s.injury
        cov = cover if hidden else 0
        after_cover = max(0, raw - cov)
        arm = s.armour_at(loc)
        armour_val = arm.value if (arm is not None and arm.protects) else 0
        pierced = False
        wear = 0
        dur_before = arm.durability if arm is not None else None
        dur_after = dur_before
        events: list[Event] = []
        if armour_val:
            if after_cover > armour_val:
                pierced = True
                basis = raw if st.armour_wear_of == "shot" else after_cover
                wear = basis // 2 if st.armour_wear == "half_down" else -(-basis // 2)
                dur_after = max(0, arm.durability - wear)
                new_armour = {**s.armour, loc: arm.model_copy(update={"durability": dur_after})}
                s = w.put(target, armour=new_armour)
                events.append(w.event(target, "armour", f"{arm.name or 'armour'} on the "
                                      f"{loc.replace('_', ' ')} is pierced and wears {wear} "
                                      f"(durability {dur_before} -> {dur_after})"
                                      + (": it no longer protects" if dur_after == 0 else ""),
                                      loc, wear))
            taken = max(0, after_cover - armour_val)
        else:
            taken = after_cover
        wound = s.wound(loc)
        sev_before = wound.severity
        parts = [f"damage {raw}"]
        if hidden:
            parts.append(f"- cover {cov}")
        if armour_val:
            parts.append(f"- armour {armour_val}")
        w.say(f"    {' '.join(parts)} = {taken} to the {loc.replace('_', ' ')}", "damage", None, target)
        if taken > 0:
            dmg = wound.damage + taken
            old_step = wound.step
            new_step = max(old_step, step_for(dmg, st.thresholds_for(loc)))
            new_wound = wound.model_copy(update={"damage": dmg, "severity": SEVERITIES[new_step]})
            s = w.put(target, wounds={**s.wounds, loc: new_wound}, injury=s.injury + taken)
            if new_step > old_step:
                events.append(w.event(target, "severity", f"{w.name(target)}'s "
                                      f"{loc.replace('_', ' ')}: {SEVERITIES[new_step]} injury", loc,
                                      new_step))
                w.say(f"    {w.name(target)}'s {loc.replace('_', ' ')} is now {SEVERITIES[new_step]} "
                      f"({dmg} points)", "severity", None, target)
            # "If your injury total ever exceeds the given value ... you die immediately":
            # before the location's effects, which then no longer apply (_effect checks).
            events += w.check_death(target, f"{loc.replace('_', ' ')} wound")
            stunned_by_step = False
            for step, eff in fx.crossed(loc, old_step, new_step, st.crossing_effects):
                evs, stun = self._effect(w, target, loc, step, eff)
                events += evs
                stunned_by_step = stunned_by_step or stun
        else:
            stunned_by_step = False
        if loc == "head" and not stunned_by_step and not w.sheet(target).dead:
            roll = w.rec.d100("stun", target)
            if roll <= st.head_stun_chance:
                events += w.stun(target, f"head shot, rolled {roll} against {st.head_stun_chance}%")
            else:
                events.append(w.event(target, "head_stun", f"{w.name(target)} shrugs off the head shot "
                                      f"(rolled {roll} against {st.head_stun_chance}%)", loc, 0))
        return DamageResult(target, loc, raw, hidden, cov, after_cover, armour_val, pierced, wear,
                            dur_before, dur_after, taken, sev_before, w.sheet(target).wounds.get(
                                loc, Wound()).severity, injury_before, w.sheet(target).injury,
                            tuple(events))

    def _effect(self, w: _Work, ident: str, loc: str, step: int, eff: fx.Effect) -> tuple[list[Event], bool]:
        """Apply one reached step's one-off effects; returns (events, stunned)."""
        st = w.settings
        where = f"{loc.replace('_', ' ')} {SEVERITIES[step]}"
        out: list[Event] = []
        if w.sheet(ident).dead:
            return out, False
        if eff.dead:
            w.put(ident, dead=True)
            s = w.sheet(ident)
            if s.actions_left is not None:
                w.put(ident, actions_left=0)
            out.append(w.event(ident, "dead", f"{w.name(ident)} is dead ({where})", loc))
            return out, False
        if eff.speed:
            out.append(w.event(ident, "speed", f"{w.name(ident)} suffers -{eff.speed} speed ({where})",
                               loc, eff.speed))
        if eff.stun:
            out += w.stun(ident, where)
        if eff.prone:
            out += w.fall_prone(ident, where)
        if eff.extra:
            n, sides, k = parse_dice(eff.extra)
            v = sum(w.rec.dice(n, sides, "extra", ident)) + k
            out.append(w.event(ident, "extra", f"{w.name(ident)} takes {eff.extra} = {v} more to the "
                               f"injury total ({where})", loc, v))
            out += w.add_injury(ident, v, where)
        if eff.bleed:
            s = w.sheet(ident)
            wd = s.wound(loc)
            w.put(ident, wounds={**s.wounds, loc: wd.model_copy(update={"bleeding": wd.bleeding + 1})})
            out.append(w.event(ident, "bleed", f"{w.name(ident)} starts bleeding ({where})", loc, 1))
        if eff.drop == "all":
            out += w.drop(ident, loc, where)
        elif eff.drop == "may" and w.holds_with(ident, loc):
            roll = w.rec.d100("drop", ident)
            if roll <= st.drop_chance:
                out += w.drop(ident, loc, f"{where}, rolled {roll} against {st.drop_chance}%")
            else:
                out.append(w.event(ident, "drop", f"{w.name(ident)} keeps hold ({where}, rolled {roll} "
                                   f"against {st.drop_chance}%)", loc, 0))
        if eff.stay_prone:
            out.append(w.event(ident, "stay_prone", f"{w.name(ident)} must remain prone"
                               + (" and may only crawl" if eff.crawl else "") + f" ({where})", loc))
        if eff.arm_useless:
            out.append(w.event(ident, "arm_useless", f"{w.name(ident)} can no longer use the "
                               f"{loc.replace('_', ' ')}", loc))
        if eff.half_chance:
            out.append(w.event(ident, "half_chance", f"{w.name(ident)}'s base chance is halved when "
                               f"attacking with the {loc.replace('_', ' ')}", loc))
        if eff.pass_out:
            out += w.pass_out_check(ident, where)
        return out, eff.stun

    def _melee(self, w: _Work, a: Melee) -> ShotResult:
        pre = self._melee_preview(w.enc, a)
        wpn = sheet_of(w.enc.token(a.actor)).weapon_named(pre.weapon)
        assert wpn is not None
        w.say(f"{w.name(a.actor)} attacks {w.name(a.target.id)} with {wpn.name} "
              f"({pre.shots[0].text()})", "melee", a.actor, a.target.id)
        return self._shot(w, a.actor, a.target, wpn, pre.shots[0], 1, melee=True, parry=pre.parry)

    def _recover(self, w: _Work, a: Recover) -> RecoverResult:
        st = w.settings
        pid = a.patient or a.actor
        chance, heal_txt = self._recover_chance(w.enc, a)
        roll = w.rec.d100("recover", a.actor)
        ok = chance.succeeds(roll)
        what = a.location.replace("_", " ") if a.location else "injury total"
        s = w.sheet(pid)
        inj_before = s.injury
        if not ok:
            w.say(f"{w.name(a.actor)} tries to recover {w.name(pid)}'s {what}: rolled {roll} vs "
                  f"{chance.value}% - fails", "recover", a.actor, pid)
            return RecoverResult(a.actor, pid, a.location, chance, roll, False, 0, None, None,
                                 inj_before, inj_before)
        who = a.actor if st.recover_by == "actor" else pid
        bonus = heal_bonus(w.sheet(who).max_injury)
        healed = w.rec.roll(3, "heal", a.actor) + bonus
        sev_b = sev_a = None
        if a.location is None:
            w.put(pid, injury=max(0, s.injury - healed))
        else:
            wd = s.wound(a.location)
            sev_b = wd.severity
            new_step = max(0, wd.step - 1)
            sev_a = SEVERITIES[new_step]
            upd = {"damage": max(0, wd.damage - healed), "severity": sev_a}
            if st.recover_stops_bleeding and wd.bleeding:
                upd["bleeding"] = 0
                w.event(pid, "bleeding", f"{w.name(pid)}'s {what} stops bleeding", a.location, 0)
            wounds = {**s.wounds, a.location: wd.model_copy(update=upd)}
            # the total loses what the location loses (no more than its damage)
            off = min(healed, wd.damage)
            injury = max(0, s.injury - off) if st.recover_heals_total else s.injury
            w.put(pid, wounds=wounds, injury=injury)
        if st.recover_wakes and w.sheet(pid).unconscious:
            w.put(pid, unconscious=False)
            w.event(pid, "wake", f"{w.name(pid)} comes round")
        s2 = w.sheet(pid)
        w.say(f"{w.name(a.actor)} recovers {w.name(pid)}'s {what}: rolled {roll} vs {chance.value}% - "
              f"heals {heal_txt} = {healed}" + (f"; {what} {sev_b} -> {sev_a}" if sev_b else "")
              + f"; injury {inj_before} -> {s2.injury}", "recover", a.actor, pid)
        w.event(pid, "heal", f"{w.name(pid)} heals {healed}", a.location, healed)
        return RecoverResult(a.actor, pid, a.location, chance, roll, True, healed, sev_b, sev_a,
                             inj_before, s2.injury)

    def _switch(self, w: _Work, a: SwitchWeapon) -> None:
        s = w.sheet(a.actor)
        w.lose_aim(a.actor, "switched weapon")
        dropped = tuple(d for d in s.dropped if d != a.weapon)
        picked = a.weapon in s.dropped
        if a.hand == "main":
            upd = {"weapon": a.weapon, "rested": False, "dropped": dropped}
            if a.weapon is not None and a.weapon == s.offhand:
                upd["offhand"] = None
        else:
            upd = {"offhand": a.weapon, "dropped": dropped}
            if a.weapon is not None and a.weapon == s.weapon:
                upd["weapon"] = None
        w.put(a.actor, **upd)
        hand = "main hand" if a.hand == "main" else "off hand"
        if a.weapon is None:
            w.say(f"{w.name(a.actor)} empties the {hand}", "switch", a.actor)
        else:
            w.say(f"{w.name(a.actor)} {'picks up' if picked else 'takes'} {a.weapon} in the {hand}",
                  "switch", a.actor)
