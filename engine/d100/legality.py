"""Reading, legality and preview of the d100 rules (seed 003): whether an action is allowed
now and why not, and before any die is rolled every chance with each modifier and its source.

:class:`Legality` is a base of the d100 :class:`~engine.rules.RuleSystem`
(:class:`engine.d100.system.D100`); it changes nothing.
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
from engine.d100.sheet import LOCATIONS, STANCES, D100Weapon, Settings, Sheet
from engine.d100.values import (
    MAP_STANCE,
    STANCE_LABELS,
    AttackPreview,
    Chance,
    Modifier,
    Preview,
    Status,
    hit_chance,
    distance_between,
    heal_bonus,
    actions_per_round,
    arms_of,
    lasting_of,
    settings_of,
    sheet_of,
    stance_hidden,
)
from engine.errors import IllegalActionError, UnknownIdError
from engine.model import Encounter, Token
from engine.names import token_name


class Legality:
    """The checking half of :class:`~engine.d100.system.D100`: nothing here changes the
    encounter."""

    # -- reading --------------------------------------------------------------------------------
    def sheet(self, token: Token) -> Sheet:
        return sheet_of(token)

    def settings(self, encounter: Encounter) -> Settings:
        return settings_of(encounter)

    def status(self, encounter: Encounter, token_id: str) -> Status:
        """Derived state of one token: actions per round, penalties, hidden locations."""
        return self.status_of(token_id, sheet_of(encounter.token(token_id)), settings_of(encounter))

    def status_of(self, token_id: str, s: Sheet, st: Settings) -> Status:
        """:meth:`status` of the token ``token_id`` whose sheet is ``s`` in an encounter
        whose settings are ``st`` (it reads nothing else: a panel showing every token asks
        this without looking each token up)."""
        last = lasting_of(s, st)
        why = self._cannot_act(s, st)
        return Status(
            id=token_id,
            actions_per_round=max(1, s.speed - last.speed_penalty),
            speed_penalty=last.speed_penalty,
            stay_prone=last.stay_prone,
            crawl=last.crawl,
            useless_arms=last.useless_arms,
            halved_arms=last.halved_arms,
            bleeding=sum(w.bleeding for w in s.wounds.values()),
            hidden=stance_hidden(s.stance, s),
            map_stance=MAP_STANCE[s.stance],
            aim_bonus=min(st.aim_max, st.aim_step * s.aim_level),
            can_act=why is None,
            reason=why,
            stunned=not s.dead and (s.stunned > 0 or (
                st.round > 0 and s.actions_left == 0 and not s.acted and not s.turn_done
                and not s.unconscious)),
        )

    def round_order(self, encounter: Encounter) -> list[tuple[str, int | None, int]]:
        """The round tracker: (token id, actions left or None outside rounds, actions per
        round), in the round's order (by actions, then speed, then file order)."""
        st = settings_of(encounter)
        sheets = {t.id: sheet_of(t) for t in encounter.tokens}  # (one look-up each: 500 tokens)
        in_order = set(st.order)
        order = [i for i in st.order if i in sheets] + [i for i in sheets if i not in in_order]
        out = [(i, sheets[i].actions_left, actions_per_round(sheets[i], st)) for i in order]
        if not st.order:
            idx = {i: n for n, i in enumerate(sheets)}
            out.sort(key=lambda r: (-r[2], -sheets[r[0]].speed, idx[r[0]]))
        return out

    def stance_hidden(self, encounter: Encounter, token_id: str) -> tuple[str, ...]:
        s = sheet_of(encounter.token(token_id))
        return stance_hidden(s.stance, s)

    # -- legality -------------------------------------------------------------------------------
    def _cannot_act(self, s: Sheet, st: Settings) -> str | None:
        if s.dead:
            return "is dead"
        if s.unconscious:
            return "is unconscious"
        if st.round > 0:
            if s.turn_done:
                return "has ended its turn this round"
            if s.actions_left is not None and s.actions_left < 1:
                return "has no actions left this round" + (" (stunned)" if not s.acted else "")
        return None

    def why_not(self, encounter: Encounter, action: Action) -> str | None:
        """None when ``action`` is legal now, else the reason in the GM's words."""
        try:
            return self._why_not(encounter, action)
        except UnknownIdError as e:
            return str(e)

    def check(self, encounter: Encounter, action) -> None:
        """Raise :class:`IllegalActionError` when ``action`` is not legal now."""
        reason = self.why_not(encounter, action)
        if reason is not None:
            raise IllegalActionError(reason)

    def is_legal(self, encounter: Encounter, action) -> bool:
        return self.why_not(encounter, action) is None

    def _why_not(self, enc: Encounter, a) -> str | None:
        st = settings_of(enc)
        if isinstance(a, StartRound):
            return None
        actor = enc.token(a.actor)
        s = sheet_of(actor)
        who = token_name(actor)
        if isinstance(a, EndTurn):
            if st.round > 0 and s.turn_done:
                return f"{who} has already ended its turn this round"
            return None
        if isinstance(a, RestWeapon) and not a.rest:
            return None if s.rested else f"{who}'s weapon is not rested"
        why = self._cannot_act(s, st)
        if why:
            return f"{who} {why}"
        last = lasting_of(s, st)
        if isinstance(a, Aim):
            tgt = enc.token(a.target)
            w = s.weapon_named(s.weapon) or s.weapon_named(s.offhand)
            if w is None or w.melee:
                return f"{who} holds no ranged weapon to aim"
            if a.target == a.actor:
                return f"{who} cannot aim at itself"
            full = a.full_cover if a.full_cover is not None else sheet_of(tgt).stance == "hiding"
            if full:
                return f"{token_name(tgt)} has full cover: aiming is not possible"
            if (s.aim_target == a.target and
                    st.aim_step * (s.aim_level + 1) > st.aim_max):
                return f"{who} already aims at the maximum +{st.aim_max}%"
            return None
        if isinstance(a, ChangeStance):
            if a.stance not in STANCES:
                return f"unknown stance {a.stance!r}; stances: {', '.join(STANCES)}"
            if a.stance == s.stance:
                return f"{who} is already in the stance {STANCE_LABELS[a.stance]}"
            if last.stay_prone and a.stance != "prone":
                return f"{who} must remain prone (wounds)"
            return None
        if isinstance(a, Fire):
            return self._why_not_fire(enc, a, s, who)
        if isinstance(a, FireTwoPistols):
            return self._why_not_two(enc, a, s, who)
        if isinstance(a, Melee):
            if s.stance == "hiding":
                return f"{who} is hiding behind cover and cannot attack"
            w = s.weapon_named(s.weapon)
            slot = "main"
            if w is None or not w.melee:
                w = s.weapon_named(s.offhand)
                slot = "off"
            if w is None or not w.melee:
                return f"{who} holds no melee weapon"
            if any(arm in last.useless_arms for arm in arms_of(s, slot)):
                return f"{who} cannot use that arm"
            tgt = enc.token(a.target.id)
            if tgt.id == actor.id:
                return f"{who} cannot attack itself"
            if sheet_of(tgt).dead:
                return f"{token_name(tgt)} is already dead"
            gap = distance_between(actor, tgt)
            if gap > st.melee_reach + 1e-9:
                return (f"{token_name(tgt)} is {gap:.1f} m away, beyond melee reach "
                        f"({st.melee_reach:g} m)")
            return None
        if isinstance(a, Recover):
            pid = a.patient or a.actor
            pat = enc.token(pid)
            ps = sheet_of(pat)
            pname = token_name(pat)
            if ps.dead:
                return f"{pname} is dead"
            if pid != a.actor:
                gap = distance_between(actor, pat)
                if gap > st.melee_reach + 1e-9:
                    return f"{pname} is {gap:.1f} m away, out of reach to help ({st.melee_reach:g} m)"
            if a.location is None:
                if ps.injury <= 0:
                    return f"{pname} has no injury to heal"
            else:
                wnd = ps.wound(a.location)
                if wnd.damage <= 0 and wnd.step == 0 and wnd.bleeding == 0:
                    return f"{pname}'s {a.location.replace('_', ' ')} is not wounded"
            return None
        if isinstance(a, RestWeapon):
            if s.rested:
                return f"{who}'s weapon is already rested"
            w = s.weapon_named(s.weapon) or s.weapon_named(s.offhand)
            if w is None or w.melee:
                return f"{who} holds no ranged weapon to rest"
            return None
        if isinstance(a, SwitchWeapon):
            return self._why_not_switch(a, s, who, last)
        return f"unknown action {type(a).__name__}"

    def _held(self, s: Sheet, name: str | None) -> tuple[D100Weapon | None, str | None]:
        """(weapon, slot) for a held weapon by name (None: the main-hand weapon, else the
        off-hand one)."""
        if name is None:
            if s.weapon is not None:
                return s.weapon_named(s.weapon), "main"
            if s.offhand is not None:
                return s.weapon_named(s.offhand), "off"
            return None, None
        if name == s.weapon:
            return s.weapon_named(name), "main"
        if name == s.offhand:
            return s.weapon_named(name), "off"
        return None, None

    def _why_not_fire(self, enc: Encounter, a: Fire, s: Sheet, who: str) -> str | None:
        st = settings_of(enc)
        if s.stance == "hiding":
            return f"{who} is hiding behind cover and cannot attack"
        w, slot = self._held(s, a.weapon)
        if w is None:
            return f"{who} does not hold {a.weapon}" if a.weapon else f"{who} holds no weapon"
        if w.melee:
            return f"{w.name} is a melee weapon: use Melee attack"
        if a.mode not in w.modes:
            return f"{w.name} cannot fire {a.mode} (modes: {', '.join(w.modes)})"
        last = lasting_of(s, st)
        if any(arm in last.useless_arms for arm in arms_of(s, slot)):
            return f"{who} cannot use the arm holding {w.name}"
        n = len(a.targets)
        if n == 0:
            return "name a target"
        if a.mode != "auto" and n != 1:
            return f"{a.mode} fire takes one target, got {n}"
        if a.mode == "auto" and n > st.auto_targets:
            return f"full auto takes at most {st.auto_targets} targets, got {n}"
        ids = [t.id for t in a.targets]
        if len(set(ids)) != n:
            return "a target is named twice"
        if a.mode == "auto" and n > w.auto_shots:
            return f"{w.name} fires {w.auto_shots} shots, fewer than {n} targets"
        for t in a.targets:
            why = self._why_not_target(enc, a.actor, t)
            if why:
                return why
        return None

    def _why_not_target(self, enc: Encounter, actor: str, t: TargetSpec) -> str | None:
        tgt = enc.token(t.id)
        if t.id == actor:
            return "a character cannot shoot itself"
        if sheet_of(tgt).dead:
            return f"{token_name(tgt)} is already dead"
        return None

    def _why_not_two(self, enc: Encounter, a: FireTwoPistols, s: Sheet, who: str) -> str | None:
        st = settings_of(enc)
        if s.stance == "hiding":
            return f"{who} is hiding behind cover and cannot attack"
        main, off = s.weapon_named(s.weapon), s.weapon_named(s.offhand)
        if main is None or off is None or main.kind != "pistol" or off.kind != "pistol":
            return f"{who} needs a pistol in each hand"
        for w in (main, off):
            if a.mode not in w.modes:
                return f"{w.name} cannot fire {a.mode}"
        last = lasting_of(s, st)
        if last.useless_arms:
            return f"{who} cannot use the {last.useless_arms[0].replace('_', ' ')}"
        for t in (a.target, a.off_target or a.target):
            why = self._why_not_target(enc, a.actor, t)
            if why:
                return why
        return None

    def _why_not_switch(self, a: SwitchWeapon, s: Sheet, who: str, last: fx.Lasting) -> str | None:
        if a.weapon is None:
            held = s.weapon if a.hand == "main" else s.offhand
            return None if held is not None else f"{who}'s {a.hand} hand is already empty"
        w = s.weapon_named(a.weapon)
        if w is None:
            names = ", ".join(x.name for x in s.weapons) or "none"
            return f"{who} has no weapon {a.weapon!r} (weapons: {names})"
        if a.weapon == (s.weapon if a.hand == "main" else s.offhand):
            return f"{who} already holds {a.weapon}"
        primary, off = f"{s.primary_hand}_arm", f"{s.off_hand}_arm"
        if a.hand == "main":
            if primary in last.useless_arms:
                return f"{who}'s {primary.replace('_', ' ')} is useless: take it in the off hand"
            if w.two_handed and off in last.useless_arms:
                return f"{w.name} needs two hands and the {off.replace('_', ' ')} is useless"
            if w.two_handed and s.offhand is not None and s.offhand != a.weapon:
                return f"{w.name} needs two hands: the off hand holds {s.offhand}"
        else:
            if off in last.useless_arms:
                return f"{who}'s {off.replace('_', ' ')} is useless"
            if w.two_handed:
                return f"{w.name} needs two hands"
            cur = s.weapon_named(s.weapon)
            if cur is not None and cur.two_handed and s.weapon != a.weapon:
                return f"both hands hold {cur.name}"
        return None

    # -- chances --------------------------------------------------------------------------------
    def _base(self, s: Sheet, st: Settings, w: D100Weapon, slot: str,
              two_pistols: bool = False) -> list[Modifier]:
        """The modifiers of the shooter's own chance with ``w`` held in ``slot``: skill (or
        the base chance), a halving wound on a holding arm, the weapon's own modifier, and the
        off-hand penalty. Not on a Fire Two Pistols attack (``two_pistols``): seed 003 gives
        that attack its own penalty, "both weapons take a -20% penalty for those attacks", the
        same for both guns, so the off-hand gun takes no second one."""
        skill = (w.skill or "").lower()
        if skill and skill in s.skills:
            base = s.skills[skill]
            mods = [Modifier(f"{skill} skill", base, "skill")]
        else:
            base = st.base_chance
            mods = [Modifier("base chance" + (f" (no {skill} skill)" if skill else ""), base, "base")]
        last = lasting_of(s, st)
        halved = [arm for arm in arms_of(s, slot) if arm in last.halved_arms]
        if halved:
            cut = base - base // 2
            mods.append(Modifier(f"{halved[0].replace('_', ' ')} seriously wounded: base halved",
                                 -cut, "wound"))
        if w.modifier:
            mods.append(Modifier(w.name, w.modifier, "weapon"))
        if (slot == "off" and not two_pistols and st.off_hand_penalty
                and "ambidextrous" not in s.traits):
            mods.append(Modifier("off hand", -st.off_hand_penalty, "off hand"))
        return mods

    def shot_chances(self, enc: Encounter, actor: str, w: D100Weapon, slot: str, mode: str,
                     target: TargetSpec, n_shots: int, extra: tuple[tuple[str, int], ...] = (),
                     two_pistols: bool = False) -> tuple[Chance, ...]:
        """The chance of each of ``n_shots`` shots at one target (in order)."""
        st = settings_of(enc)
        s = sheet_of(enc.token(actor))
        base = self._base(s, st, w, slot, two_pistols)
        common: list[Modifier] = []
        if s.rested and slot == "main":
            common.append(Modifier("rested weapon", st.rest_bonus, "rest"))
        if two_pistols:
            common.append(Modifier("two pistols", -st.two_pistol_penalty, "two pistols"))
        if mode == "semi":
            common.append(Modifier(f"semi-auto, {n_shots} shots", -st.semi_penalty * n_shots, "semi"))
        for label, v in (*extra, *target.modifiers):
            common.append(Modifier(label, int(v), "gm"))
        aim = min(st.aim_max, st.aim_step * s.aim_level) if s.aim_target == target.id else 0
        out = []
        for i in range(n_shots):
            mods = list(base) + list(common)
            aimed = False
            if mode == "auto":
                total = sum(m.value for m in mods)
                if total > 0:
                    divided = total // st.auto_divisor
                    mods.append(Modifier(f"full auto: chance / {st.auto_divisor}", divided - total,
                                         "full auto"))
            elif aim and (mode == "single" or i == 0):
                mods.insert(len(base), Modifier(f"aim x{s.aim_level}", aim, "aim"))
                aimed = True
            out.append(hit_chance(mods, st, aimed))
        return tuple(out)

    def _hidden_for(self, enc: Encounter, t: TargetSpec) -> tuple[tuple[str, ...], str, int]:
        st = settings_of(enc)
        ts = sheet_of(enc.token(t.id))
        if t.hidden is not None:
            hidden, src = tuple(loc for loc in LOCATIONS if loc in t.hidden), "given"
        else:
            hidden, src = stance_hidden(ts.stance, ts), "stance"
        cover = t.cover if t.cover is not None else (ts.cover if ts.cover is not None else st.cover_value)
        return hidden, src, cover

    def _plan(self, enc: Encounter, a) -> list[tuple[D100Weapon, str, str, TargetSpec, int, bool]]:
        """(weapon, slot, mode, target, shots, two_pistols) groups an attack fires."""
        s = sheet_of(enc.token(a.actor))
        if isinstance(a, Fire):
            w, slot = self._held(s, a.weapon)
            assert w is not None and slot is not None
            if a.mode == "single":
                return [(w, slot, "single", a.targets[0], 1, False)]
            if a.mode == "semi":
                return [(w, slot, "semi", a.targets[0], w.shots, False)]
            k = len(a.targets)
            per, extra = divmod(w.auto_shots, k)
            return [(w, slot, "auto", t, per + (1 if i < extra else 0), False)
                    for i, t in enumerate(a.targets)]
        if isinstance(a, FireTwoPistols):
            main, off = s.weapon_named(s.weapon), s.weapon_named(s.offhand)
            assert main is not None and off is not None
            n_main = 1 if a.mode == "single" else main.shots
            n_off = 1 if a.mode == "single" else off.shots
            return [(main, "main", a.mode, a.target, n_main, True),
                    (off, "off", a.mode, a.off_target or a.target, n_off, True)]
        return []

    def preview(self, encounter: Encounter, action: Action, *, tactics=None) -> Preview:
        """The action's chances before any roll (an illegal action previews with its reason
        and whatever chances can still be computed)."""
        reason = self.why_not(encounter, action)
        cost = 0 if (isinstance(action, (StartRound, EndTurn)) or
                     (isinstance(action, RestWeapon) and not action.rest)) else 1
        attacks: list[AttackPreview] = []
        rec_chance = None
        heal = None
        try:
            if isinstance(action, (Fire, FireTwoPistols)) and reason is None:
                extra = action.modifiers
                for w, slot, mode, t, n, two in self._plan(encounter, action):
                    hidden, src, cover = self._hidden_for(encounter, t)
                    ch = self.shot_chances(encounter, action.actor, w, slot, mode, t, n, extra, two)
                    attacks.append(AttackPreview(action.actor, t.id, w.name, ch, t.prefer, hidden,
                                                 src, cover))
            elif isinstance(action, Melee) and reason is None:
                attacks.append(self._melee_preview(encounter, action))
            elif isinstance(action, Recover):
                rec_chance, heal = self._recover_chance(encounter, action)
        except UnknownIdError:
            pass
        return Preview(action, reason is None, reason, cost, tuple(attacks), rec_chance, heal)

    def _melee_weapon(self, s: Sheet) -> tuple[D100Weapon | None, str]:
        w = s.weapon_named(s.weapon)
        if w is not None and w.melee:
            return w, "main"
        w = s.weapon_named(s.offhand)
        if w is not None and w.melee:
            return w, "off"
        return None, "main"

    def _melee_preview(self, enc: Encounter, a: Melee) -> AttackPreview:
        st = settings_of(enc)
        s = sheet_of(enc.token(a.actor))
        w, slot = self._melee_weapon(s)
        assert w is not None
        mods = self._base(s, st, w, slot)
        for label, v in (*a.modifiers, *a.target.modifiers):
            mods.append(Modifier(label, int(v), "gm"))
        chance = hit_chance(mods, st, aimed=False)
        hidden, src, cover = self._hidden_for(enc, a.target)
        return AttackPreview(a.actor, a.target.id, w.name, (chance,), a.target.prefer, hidden, src,
                             cover, self._parry_chance(enc, a))

    def _parry_chance(self, enc: Encounter, a: Melee) -> Chance | None:
        if a.parry is False:
            return None
        st = settings_of(enc)
        ts = sheet_of(enc.token(a.target.id))
        if ts.dead or ts.unconscious:
            return None
        w, slot = self._melee_weapon(ts)
        if w is None:
            return None
        if any(arm in lasting_of(ts, st).useless_arms for arm in arms_of(ts, slot)):
            return None
        mods = self._base(ts, st, w, slot)
        return hit_chance(mods, st, placed=False)

    def _recover_chance(self, enc: Encounter, a: Recover) -> tuple[Chance, str]:
        st = settings_of(enc)
        who = a.actor if st.recover_by == "actor" else (a.patient or a.actor)
        s = sheet_of(enc.token(who))
        mods = [Modifier(f"maximum injury of {enc.token(who).name or who}", s.max_injury, "max injury")]
        for label, v in a.modifiers:
            mods.append(Modifier(label, int(v), "gm"))
        bonus = heal_bonus(s.max_injury)
        return hit_chance(mods, st, placed=False), "d3" + (f"+{bonus}" if bonus else "")
