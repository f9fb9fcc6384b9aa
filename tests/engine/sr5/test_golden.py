"""Golden sr5 scenarios: an encounter file and a sequence of steps in, the expected pools,
hits and damage out (like python-chess's perft files). Each ``golden/*.json`` (except the
arena) is one scenario; the format is described in docs/sr5.md, "Golden scenarios"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import IllegalActionError
from engine.files import encounter_from_data, encounter_to_data, load_encounter
from engine.sr5 import combat
from engine.sr5.attack import AttackDeclaration, apply_attack, plan_attack, resolve_attack
from engine.sr5.blast import BlastDeclaration, apply_blast, plan_blast_on_map, resolve_blast
from engine.sr5.combat import Action, apply_action, apply_move, end_phase, start_turn
from engine.sr5.facts import TargetFacts, TokenFacts, facts, facts_from_map
from engine.sr5.suppressive import (
    SuppressiveDeclaration,
    apply_suppression_test,
    apply_suppressive,
    plan_suppression_test,
    plan_suppressive,
    resolve_suppression_test,
    suppression_status,
)

GOLDEN = Path(__file__).parent / "golden"
SCENARIOS = sorted(p for p in GOLDEN.glob("*.json") if p.name != "arena.json")


def patch(enc, spec: dict):
    """Merge a setup/patch block into the encounter (through the file layer, so it validates)."""
    data = encounter_to_data(enc)
    for tid, upd in spec.get("tokens", {}).items():
        tok = next(t for t in data["tokens"] if t["id"] == tid)
        for k, v in upd.items():
            if k == "sr5":
                tok.setdefault("rules", {}).setdefault("sr5", {}).update(v)
            else:
                tok[k] = v
    if "obstacles" in spec:
        data["obstacles"] = spec["obstacles"]
    if "zones" in spec:
        data["zones"] = spec["zones"]
    if "settings" in spec:
        s = data.setdefault("rules", {}).setdefault("sr5", {})
        for k, v in spec["settings"].items():
            if isinstance(v, dict):
                s.setdefault(k, {}).update(v)
            else:
                s[k] = v
    return encounter_from_data(data)


def make_facts(enc, spec, attacker, targets, weapon):
    if spec in (None, "map"):
        return facts_from_map(enc, attacker, targets, weapon)
    return facts(
        [TargetFacts(t, **v) for t, v in spec.get("targets", {}).items()],
        {t: TokenFacts(**{k: tuple(x) if isinstance(x, list) else x for k, x in v.items()})
         for t, v in spec.get("tokens", {}).items()},
    )


def check_pool(where, pool, exp, prefix):
    if f"{prefix}" in exp:
        assert pool.total == exp[prefix], f"{where}: {prefix} pool {pool.describe()}"
    if f"{prefix}_mods" in exp:
        got = {m.key: m.value for m in pool.modifiers}
        assert got == exp[f"{prefix}_mods"], f"{where}: {prefix} modifiers {pool.describe()}"


def check_attack(where, plan, res, exp):
    if "legal" in exp:
        assert plan.legal == exp["legal"], f"{where}: problems {plan.problems}"
    for text in exp.get("problems_contain", []):
        assert any(text in p for p in plan.problems), f"{where}: no problem says {text!r}: {plan.problems}"
    if "common" in exp:
        assert plan.common.total == exp["common"], f"{where}: common pool {plan.common.describe()}"
    if "common_mods" in exp:
        got = {m.key: m.value for m in plan.common.modifiers}
        assert got == exp["common_mods"], f"{where}: common modifiers {plan.common.describe()}"
    for key, attr in (("shares", "shares"), ("rounds", "rounds"), ("cost", "cost"), ("kind", "kind")):
        if key in exp:
            val = getattr(plan, attr)
            assert (list(val) if isinstance(val, tuple) else val) == exp[key], f"{where}: {key} {val}"
    if "recoil" in exp:
        assert plan.recoil.penalty == exp["recoil"], f"{where}: recoil {plan.recoil.text}"
    for tid, te in exp.get("targets", {}).items():
        tp = plan.target(tid)
        w = f"{where} [{tid}]"
        for key in ("band", "defense_choice"):
            if key in te:
                assert getattr(tp, key) == te[key], f"{w}: {key} {getattr(tp, key)}"
        if "cover" in te:
            assert tp.facts.cover == te["cover"], f"{w}: cover {tp.facts.cover} ({tp.facts.cover_fraction})"
        check_pool(w, tp.attack, te, "attack")
        check_pool(w, tp.defense, te, "defense")
        check_pool(w, tp.soak, te, "soak")
        if "limit" in te:
            assert tp.attack.limit == te["limit"], f"{w}: limit {tp.attack.describe()}"
        if "damage" in te:
            assert f"{tp.damage.value}{tp.damage.type}" == te["damage"], f"{w}: damage {tp.damage}"
        if res is not None:
            o = res.outcome(tid)
            for key, val in (("hits", o.attack.hits if o.attack else None),
                             ("defense_hits", o.defense.hits if o.defense else None),
                             ("soak_hits", o.soak.hits if o.soak else None),
                             ("result", o.result), ("net", o.net_hits), ("dv", o.dv), ("armor", o.armor),
                             ("damage_type", o.damage_type), ("boxes", o.boxes),
                             ("glitch", o.attack.glitch if o.attack else None),
                             ("critical_glitch", o.attack.critical_glitch if o.attack else None)):
                if key in te:
                    assert val == te[key], f"{w}: {key} is {val}, expected {te[key]}; steps: {res.steps()}"


def check_blast(where, plan, res, exp):
    """The expected numbers of a blast: the plan at the aim point, then (with dice) where
    it landed and each caught token's rolls and damage."""
    if "legal" in exp:
        assert plan.legal == exp["legal"], f"{where}: problems {plan.problems}"
    for text in exp.get("problems_contain", []):
        assert any(text in p for p in plan.problems), f"{where}: no problem says {text!r}: {plan.problems}"
    check_pool(where, plan.attack, exp, "attack")
    for key, val in (("limit", plan.attack.limit), ("band", plan.band), ("scatter_dice", plan.scatter_dice),
                     ("damage", plan.damage_text())):
        if key in exp:
            assert val == exp[key], f"{where}: {key} is {val}, expected {exp[key]}"
    if "radius" in exp:
        assert plan.radius == pytest.approx(exp["radius"]), f"{where}: radius {plan.radius}"
    if "caught" in exp:
        assert [t.target for t in plan.targets] == exp["caught"], f"{where}: caught {[t.target for t in plan.targets]}"
    if "spared" in exp:
        assert [list(s) for s in plan.facts.spared] == exp["spared"], f"{where}: spared {plan.facts.spared}"
    if res is not None:
        for key, val in (("hits", res.attack.hits), ("on_target", res.on_target),
                         ("scatter_metres", res.scatter_metres), ("moved", res.moved)):
            if key in exp:
                assert val == exp[key], f"{where}: {key} is {val}, expected {exp[key]}; {res.steps()}"
        if "bearing" in exp:
            assert res.bearing == pytest.approx(exp["bearing"]), f"{where}: bearing {res.bearing}"
        if "landing" in exp:
            assert res.landing == pytest.approx(tuple(exp["landing"]), abs=1e-6), f"{where}: landing {res.landing}"
        if "caught_after" in exp:
            got = [t.target for t in res.targets]
            assert got == exp["caught_after"], f"{where}: caught where it landed {got}"
        if "spared_after" in exp:
            assert [list(s) for s in res.facts.spared] == exp["spared_after"], f"{where}: spared {res.facts.spared}"
    for tid, te in exp.get("targets", {}).items():
        w = f"{where} [{tid}]"
        tp = res.target(tid) if res is not None else plan.target(tid)
        if "distance" in te:
            assert tp.facts.distance == pytest.approx(te["distance"], abs=1e-3), f"{w}: distance {tp.facts.distance}"
        for key, val in (("metres", tp.metres), ("dv_here", tp.dv), ("cover", tp.facts.cover)):
            if key in te:
                assert val == te[key], f"{w}: {key} is {val}, expected {te[key]}"
        check_pool(w, tp.defense, te, "defense")
        check_pool(w, tp.soak, te, "soak")
        if res is not None:
            o = res.outcome(tid)
            for key, val in (("defense_hits", o.defense.hits if o.defense else None),
                             ("soak_hits", o.soak.hits if o.soak else None), ("result", o.result), ("dv", o.dv),
                             ("armor", o.armor), ("damage_type", o.damage_type), ("boxes", o.boxes)):
                if key in te:
                    assert val == te[key], f"{w}: {key} is {val}, expected {te[key]}; steps: {res.steps()}"


def check_state(where, enc, spec):
    for tid, te in spec.get("tokens", {}).items():
        tok = enc.token(tid)
        for k, v in te.items():
            if k == "loaded":
                for wname, n in v.items():
                    assert tok.weapon(wname).loaded == n, f"{where}: {tid} {wname} loaded {tok.weapon(wname).loaded}"
            elif k in ("stance", "x", "y"):
                assert getattr(tok, k) == v, f"{where}: {tid}.{k} = {getattr(tok, k)}"
            elif k == "status":
                from engine.sr5.condition import status

                assert status(tok.rules.get("sr5")) == v, f"{where}: {tid} status {status(tok.rules.get('sr5'))}"
            else:
                got = getattr(tok.rules.get("sr5"), k)
                got = list(got) if isinstance(got, tuple) else got
                assert got == v, f"{where}: {tid}.sr5.{k} = {got}, expected {v}"
    for zid, ze in spec.get("zones", {}).items():
        z = enc.zone(zid)
        for k, v in ze.items():
            assert getattr(z, k) == pytest.approx(v, abs=1e-6), f"{where}: zone {zid}.{k} = {getattr(z, k)}"
    st = enc.rules.get("sr5")
    for k, v in spec.get("settings", {}).items():
        if k == "suppressions":
            got = [[s.zone, s.hits] for s in st.suppressions]
        else:
            got = getattr(st, k)
            got = got.model_dump(mode="json") if hasattr(got, "model_dump") else got
            got = list(got) if isinstance(got, tuple) else got
        assert got == v, f"{where}: settings.{k} = {got}, expected {v}"
    if "order" in spec:
        assert list(combat.action_order(enc)) == spec["order"], f"{where}: order {combat.action_order(enc)}"
    if "log_contains" in spec:
        text = "\n".join(e.text for e in st.log)
        for s in spec["log_contains"]:
            assert s in text, f"{where}: log lacks {s!r}"


def run_step(enc, step, changes, where):
    kind = next(k for k in step if k not in ("note", "dice", "expect", "expect_error", "expect_prompts", "facts",
                                             "overrides", "apply"))
    body = step[kind]
    exp = step.get("expect", {})
    ch = None
    try:
        if kind == "start_turn":
            enc, ch = start_turn(enc, entered=body.get("entered"))
        elif kind == "end_phase":
            for _ in range(body.get("times", 1)):
                enc, ch = end_phase(enc)
        elif kind == "patch":
            enc = patch(enc, body)
        elif kind == "action":
            a = Action(**{k: tuple(v) if isinstance(v, list) else v for k, v in body.items()})
            enc, ch = apply_action(enc, a, step.get("dice"))
        elif kind == "move":
            if "to" in body:
                enc = patch(enc, {"tokens": {body["token"]: {"x": body["to"][0], "y": body["to"][1]}}})
            enc, ch = apply_move(enc, body["token"], body["metres"], zones_before=body.get("zones_before", ()),
                                 zones_after=body.get("zones_after", ()))
        elif kind == "attack":
            decl = AttackDeclaration(**{k: tuple(v) if k == "targets" else v for k, v in body.items()})
            f = make_facts(enc, step.get("facts"), decl.attacker, decl.targets, decl.weapon)
            plan = plan_attack(enc, decl, f)
            for o in step.get("overrides", []):
                plan = plan.override(o["key"], o["value"], target=o.get("target"), pool=o.get("pool", "attack"))
            res = resolve_attack(plan, step["dice"]) if "dice" in step else None
            check_attack(where, plan, res, exp)
            if res is not None and step.get("apply", True):
                enc, ch = apply_attack(enc, res)
        elif kind == "blast":
            plan = plan_blast_on_map(enc, BlastDeclaration(**body))
            for o in step.get("overrides", []):
                plan = plan.override(o["key"], o["value"], target=o.get("target"), pool=o.get("pool", "attack"))
            res = resolve_blast(plan, step["dice"]) if "dice" in step else None
            check_blast(where, plan, res, exp)
            if res is not None and step.get("apply", True):
                enc, ch = apply_blast(enc, res)
        elif kind == "suppressive":
            plan = plan_suppressive(enc, SuppressiveDeclaration(**body))
            if "pool" in exp:
                assert plan.pool.total == exp["pool"], f"{where}: pool {plan.pool.describe()}"
            if "limit" in exp:
                assert plan.pool.limit == exp["limit"], f"{where}: limit {plan.pool.describe()}"
            enc, ch = apply_suppressive(enc, plan, step["dice"])
            if "hits" in exp:
                assert ch.details["test"].hits == exp["hits"], f"{where}: hits {ch.details['test'].describe()}"
        elif kind == "suppression_status":
            f = facts_from_map(enc, body["facts_from"], [])
            st = suppression_status(enc, f)
            for tid, te in exp.items():
                s = st.get(tid)
                got = {"penalty": s.penalty if s else 0, "must_test": list(s.must_test) if s else [],
                       "spared": [list(x) for x in s.spared] if s else []}
                assert {k: got[k] for k in te} == te, f"{where}: {tid} {got}"
            return enc
        elif kind == "suppression_test":
            p = plan_suppression_test(enc, body["token"], body["zone"], body.get("index", 0))
            r = resolve_suppression_test(p, step["dice"])
            for key, val in (("pool", p.test.total), ("threshold", p.test.threshold), ("soak", p.soak.total),
                             ("hit", r.hit), ("boxes", r.boxes), ("damage_type", r.damage_type)):
                if key in exp:
                    assert val == exp[key], f"{where}: {key} is {val}, expected {exp[key]}"
            enc, ch = apply_suppression_test(enc, r)
        elif kind == "check":
            check_state(where, enc, body)
            return enc
        elif kind == "undo":
            last = changes.pop()
            enc = last.revert(enc)
            return enc
        else:
            raise AssertionError(f"{where}: unknown step {kind!r}")
    except IllegalActionError as exc:
        if "expect_error" in step:
            assert step["expect_error"] in str(exc), f"{where}: error {exc}"
            return enc
        raise
    assert "expect_error" not in step, f"{where}: expected the error {step['expect_error']!r}"
    if ch is not None:
        changes.append(ch)
        for s in step.get("expect_prompts", []):
            assert any(s in p for p in ch.prompts), f"{where}: prompts {ch.prompts}"
    if kind in ("start_turn", "end_phase", "action", "move") and exp:
        check_state(where, enc, exp)
    return enc


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_golden_scenario(path):
    sc = json.loads(path.read_text(encoding="utf-8"))
    enc = load_encounter(GOLDEN / sc.get("encounter", "arena.json"))
    enc = patch(enc, sc.get("setup", {}))
    changes: list = []
    for i, step in enumerate(sc["steps"]):
        where = f"{path.stem} step {i + 1}" + (f" ({step['note']})" if "note" in step else "")
        enc = run_step(enc, step, changes, where)


def test_there_are_golden_scenarios_for_every_required_topic():
    names = {p.stem for p in SCENARIOS}
    assert {"firing_modes", "recoil_across_phases", "multiple_targets", "cover_classes", "suppressive_fire",
            "shotgun_chokes", "blast_on_target", "blast_scatter", "blast_full_cover", "blast_flash_bang"} <= names
