"""The window answers with the weapon the attack page takes (issue 24, "The picture is the
truth"): a Chummer runner lists "Unarmed Attack" first and holds its gun; the map's badges,
the Targets panel, the ruler and the attack page all use the gun. And the players' view
draws condition bars for the party the engine names (``sight.player_sides``), on any side.

Numbers by hand from shared/reference/sr5-facts.md: assault rifle bands 25 / 150 / 350 /
550 m, modifiers 0 / -1 / -3 / -6; 100 m is Medium, -1. Unarmed Attack has no range table.
"""

from __future__ import annotations

import pytest

from engine.analysis import Tactics
from engine.errors import CoverfireError
from engine.files import dumps_encounter
from engine.importers.chummer import import_chummer
from engine.model import Encounter, Token, Weapon
from engine.sr5.sheet import Sheet
from gui.layers.answer_layer import badge_for
from gui.ruler import measure

FIST = Weapon(name="Unarmed Attack", damage="(STR)S", accuracy=4, skill="unarmed_combat")
RIFLE = Weapon(name="Ares Alpha", category="assault_rifle", damage="11P", ap=-2, accuracy=5,
               modes=("SA", "BF", "FA"), ammo=42, loaded=42, skill="automatics")


def open_encounter(window, tmp_path, *tokens: Token, name: str = "street", **extra) -> None:
    path = tmp_path / f"{name}.json"
    enc = Encounter(name="Street", ruleset="sr5", map={"width": 200.0, "height": 100.0}, tokens=tokens, **extra)
    path.write_text(dumps_encounter(enc), encoding="utf-8")
    assert window.open_file(path, ask=False)


def badges(window) -> dict[str, str]:
    """Target id -> the text of the badge the GM's map draws on it."""
    layer = window.map_view.answer_layer
    return {tid: b[3].text for tid, b in zip(layer._badge_ids, layer._badges)}


def test_badges_targets_and_ruler_use_the_rifle_the_attack_page_takes(window, tmp_path, qtbot):
    wesson = Token(id="wesson", name="Wesson", side="runner", x=10.0, y=50.0, weapons=(FIST, RIFLE),
                   rules={"sr5": Sheet(in_hand=("Ares Alpha",))})
    ganger = Token(id="ganger", name="Ganger", side="ganger", x=110.0, y=50.0)  # 100 m east
    open_encounter(window, tmp_path, wesson, ganger)
    window.selection.set_attacker("wesson")
    qtbot.waitUntil(lambda: "ganger" in window.answers.targets)
    # the attack page's weapon
    page = window.sr5.open_attack("wesson", ["ganger"])
    assert page.weapon_combo.currentData() == "Ares Alpha"
    assert [p.label for p in page.plan.targets[0].attack.parts][-1] == "range 100 m -> medium"
    # the map's badge: Medium -1 (the fist would say "out")
    assert badges(window) == {"ganger": "M \u22121"}
    # the Targets panel: the same weapon chosen, the same band and modifier on the row
    panel = window.targets
    assert panel.weapon.currentData() == "Ares Alpha"
    row = panel.model.row_texts("ganger")
    assert row[:4] == ["Ganger", "100.0", "medium", "-1"]
    # the ruler from the attacker to the ganger
    reading = measure(window.document.encounter, window.document.tactics, (10.0, 50.0), (110.0, 50.0),
                      attacker="wesson")
    assert reading.weapon == "Ares Alpha" and reading.band == ("medium", -1)
    # the GM picks the fist in the Targets panel: badges and the attack page follow it
    panel.weapon.setCurrentIndex(panel.weapon.findData("Unarmed Attack"))
    panel.weapon.activated.emit(panel.weapon.currentIndex())
    qtbot.waitUntil(lambda: badges(window) == {"ganger": "out"})
    page = window.sr5.open_attack("wesson", ["ganger"])
    assert page.weapon_combo.currentData() == "Unarmed Attack"


def _saves(samples_dir):
    """Every Chummer save beside the checkout: the samples, and the outside files when there."""
    files = sorted((samples_dir / "chummer").glob("*.chum5"))
    files += sorted((samples_dir.parent / "outside" / "chummer").glob("*.chum5"))
    out = []
    for f in files:
        try:
            import_chummer(f)
        except CoverfireError:  # refused on import (an A.I.): nothing to put on the map
            continue
        out.append(f)
    return out


def test_for_every_real_chummer_save_the_badges_use_the_attack_pages_weapon(window, tmp_path, qtbot, samples_dir):
    saves = _saves(samples_dir)
    assert len(saves) >= 2
    ganger = Token(id="ganger", name="Ganger", side="ganger", x=30.0, y=20.0)
    open_encounter(window, tmp_path, ganger)
    wrong = []
    for save in saves:
        before = {t.id for t in window.document.encounter.tokens}
        assert window.importing.import_character(save, at=(20.0, 20.0)), save.name  # 10 m west of the ganger
        [rid] = [t.id for t in window.document.encounter.tokens if t.id not in before]
        window.selection.set_attacker(rid)
        qtbot.waitUntil(lambda: window.answers.attacker == rid and "ganger" in window.answers.targets)
        page = window.sr5.open_attack(rid, ["ganger"])
        weapon = page.weapon_combo.currentData()
        enc = window.document.encounter
        own = Tactics(enc).targets(rid, None if weapon == "Unarmed" else weapon)
        expect = badge_for(next(r for r in own if r.id == "ganger")).text
        got = (window.targets.weapon.currentData(), badges(window).get("ganger"))
        if got != (weapon, expect):
            wrong.append((save.name, weapon, expect, got))
        window.document.undo_stack.undo()
    assert wrong == []


def test_the_players_view_draws_condition_bars_for_a_party_on_side_runners(window, tmp_path, qtbot):
    sheet = Sheet(body=5, willpower=3, physical_damage=4)  # Physical 8 + 3 = 11, Stun 8 + 2 = 10
    crew = Token(id="kat", name="Kat", side="runners", x=20.0, y=20.0, rules={"sr5": sheet})
    ganger = Token(id="ganger", name="Ganger", side="ganger", x=40.0, y=20.0, rules={"sr5": sheet})
    open_encounter(window, tmp_path, crew, ganger)
    window.actions["player view"].trigger()
    player = window.player_view.player
    qtbot.waitExposed(player)
    assert [(x, y) for x, y, _, _ in player.view.conditions.bars()] == [(20.0, 20.0)]  # Kat, not the ganger
    # the GM names the players' sides (the Sight panel's list): the bars follow the fog's party
    enc = window.document.encounter
    window.document.commit(enc.model_copy(update={"sight": enc.sight.model_copy(update={"player_sides": ("crew",)})}),
                           "players' sides")
    assert player.view.conditions.bars() == []
    enc = window.document.encounter
    tokens = tuple(t.model_copy(update={"side": "crew"}) if t.id == "kat" else t for t in enc.tokens)
    window.document.commit(enc.model_copy(update={"tokens": tokens}), "Kat joins the crew")
    assert [(x, y) for x, y, _, _ in player.view.conditions.bars()] == [(20.0, 20.0)]


def test_the_attack_page_forgets_an_attacker_an_undo_removed(window, tmp_path, qtbot):
    ganger = Token(id="ganger", name="Ganger", side="ganger", x=110.0, y=50.0)
    open_encounter(window, tmp_path, ganger)
    wesson = Token(id="wesson", name="Wesson", side="runner", x=10.0, y=50.0, weapons=(FIST, RIFLE),
                   rules={"sr5": Sheet(in_hand=("Ares Alpha",))})
    enc = window.document.encounter
    window.document.commit(enc.model_copy(update={"tokens": enc.tokens + (wesson,)}), "Import Wesson")
    window.selection.set_attacker("wesson")
    page = window.sr5.open_attack("wesson", ["ganger"])
    assert page.weapon_combo.currentData() == "Ares Alpha"
    window.document.undo_stack.undo()  # (it raised "no token with id 'wesson'" on every change after)
    assert page.attacker != "wesson" and page.weapon_combo.findData("Ares Alpha") < 0
    enc = window.document.encounter
    window.document.commit(enc.model_copy(update={"name": "Street, later"}), "rename")
    assert page.attacker in (None, "ganger")


def test_a_new_weapon_in_hand_moves_the_badges_and_the_targets_panel(window, tmp_path, qtbot):
    wesson = Token(id="wesson", name="Wesson", side="runner", x=10.0, y=50.0, weapons=(FIST, RIFLE),
                   rules={"sr5": Sheet(in_hand=("Ares Alpha",))})
    open_encounter(window, tmp_path, wesson, Token(id="ganger", side="ganger", x=110.0, y=50.0))
    window.selection.set_attacker("wesson")
    qtbot.waitUntil(lambda: badges(window) == {"ganger": "M \u22121"})
    # the rifle put away, the fist ready (as Ready Weapon leaves the sheet): out of range
    enc = window.document.encounter
    w = enc.token("wesson")
    tokens = (w.with_rules("sr5", w.rules["sr5"].model_copy(update={"in_hand": ("Unarmed Attack",)})),
              enc.token("ganger"))
    window.document.commit(enc.model_copy(update={"tokens": tokens}), "Ready Weapon")
    qtbot.waitUntil(lambda: badges(window) == {"ganger": "out"})
    assert window.targets.weapon.currentData() == "Unarmed Attack"
    assert window.sr5.open_attack("wesson", ["ganger"]).weapon_combo.currentData() == "Unarmed Attack"


# Wesson (shared/samples/chummer) lists Unarmed Attack first and has the Cavalier Deputy, a
# heavy pistol, in hand: bands 5 / 20 / 40 / 60 m. A ganger 12 m east: 5 < 12 <= 20, Medium -1
# (the fist: no range table, "out"). Popstar holds the Ingram Smartgun X (bands 10 / 40 / 80 /
# 150 m: 12 m is Medium) with a smartlink and eyes with an improved rangefinder: the range
# column one row better (sr5-facts, environment table), Medium at 0. The attack page took 0
# and the badge said "M -1" before.
@pytest.mark.parametrize("save, weapon, modifier", [("Wesson.chum5", "Cavalier Deputy", -1),
                                                     ("Popstar.chum5", "Ingram Smartgun X", 0)])
def test_coverfire_analyze_and_the_window_agree_on_an_imported_runners_ready_weapon(
        save, weapon, modifier, window, tmp_path, qtbot, samples_dir, capsys):
    """``coverfire import-character`` then ``coverfire analyze`` on the file, and the same
    file opened in the window: the command's weapon and range, the map's badge, the Targets
    panel's weapon and row, the ruler, and the attack page's weapon, range and range
    modifier all say the same."""
    import json

    from engine.files import load_encounter
    from gui.cli import main

    path = tmp_path / "street.json"
    enc = Encounter(name="Street", ruleset="sr5", map={"width": 60.0, "height": 40.0},
                    tokens=(Token(id="ganger", name="Ganger", side="ganger", x=22.0, y=20.0),))
    path.write_text(dumps_encounter(enc), encoding="utf-8")
    assert main(["import-character", str(samples_dir / "chummer" / save), "--into", str(path),
                 "--at", "10", "20"]) == 0
    capsys.readouterr()
    rid = next(t.id for t in load_encounter(path).tokens if t.id != "ganger")
    assert main(["analyze", str(path), "--attacker", rid, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["weapon"] == weapon
    assert [(t["distance"], t["range"]) for t in data["targets"]] == [(12.0, {"band": "medium", "modifier": modifier})]
    assert window.open_file(path, ask=False)
    window.selection.set_attacker(rid)
    qtbot.waitUntil(lambda: window.answers.attacker == rid and "ganger" in window.answers.targets)
    assert badges(window) == {"ganger": "M \u22121" if modifier else "M 0"}
    assert window.targets.weapon.currentData() == weapon
    assert window.targets.model.row_texts("ganger")[:4] == ["Ganger", "12.0", "medium", str(modifier)]
    reading = measure(window.document.encounter, window.document.tactics, (10.0, 20.0), (22.0, 20.0),
                      attacker=rid)
    assert reading.band == ("medium", modifier)
    page = window.sr5.open_attack(rid, ["ganger"])
    assert page.weapon_combo.currentData() == weapon
    plan = page.plan.targets[0]
    assert (plan.facts.distance, plan.band) == (12.0, "medium")
    assert sum(p.value for p in plan.attack.parts if p.key == "environment") == modifier
