"""Small encounters for the sr5 tests, built in code (numbers chosen for hand arithmetic)."""

from __future__ import annotations

from engine.model import Encounter, MapSpec, Obstacle, Token, Weapon
from engine.sr5.sheet import Settings, Sheet

AK = Weapon(name="AK-97", category="assault_rifle", damage="10P", ap=-2, accuracy=5,
            modes=("SA", "BF", "FA"), rc=0, ammo=38, loaded=38)
PREDATOR = Weapon(name="Ares Predator V", category="heavy_pistol", damage="8P", ap=-1, accuracy=5,
                  modes=("SA",), ammo=15, loaded=15, smartgun=True)
HMG = Weapon(name="Stoner-Ares M107", category="heavy_machine_gun", damage="9P", ap=-3, accuracy=5,
             modes=("FA",), rc=2, ammo=100, loaded=100)
SHOTGUN = Weapon(name="Defiance T-250", category="shotgun_flechette", damage="10P(f)", ap=4, accuracy=4,
                 modes=("SS", "SA"), ammo=5, loaded=5, reload="m")
KNIFE = Weapon(name="Combat knife", damage="(STR+2)P", ap=-3, accuracy=6, skill="blades", reach=0)


def sheet(**kw) -> Sheet:
    base = dict(body=4, agility=4, reaction=3, strength=3, willpower=3, logic=3, intuition=3, charisma=3, edge=2)
    base.update(kw)
    return Sheet(**base)


def token(tid: str, x: float, y: float, *, side: str = "ganger", weapons=(AK,), stance="standing", **kw) -> Token:
    return Token(id=tid, name=tid.title(), side=side, x=x, y=y, stance=stance, weapons=tuple(weapons),
                 rules={"sr5": sheet(**kw)})


def encounter(*tokens: Token, obstacles=(), settings: Settings | None = None, zones=()) -> Encounter:
    return Encounter(name="test", map=MapSpec(width=200, height=100), tokens=tuple(tokens),
                     obstacles=tuple(obstacles), zones=tuple(zones), rules={"sr5": settings or Settings()})


def wall(oid: str, x0: float, y0: float, x1: float, y1: float, height: float) -> Obstacle:
    return Obstacle(id=oid, height=height, polygon=((x0, y0), (x1, y0), (x1, y1), (x0, y1)))
