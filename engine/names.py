"""What a person reads for an object of the encounter: its display name, never its id when it
has a name (issue 30: "Razor may not...", not "ganger-1 may not...").

One helper per kind, used by the rule systems' reasons and log lines and by every message the
window shows (status bar, undo labels, notes, tooltips, menus): the GUI has no second copy.
Errors keep the ids as data for programs (``IllegalActionError`` and friends); only their text
names things.

- a token: its ``name``, its id when it has none;
- a zone: its ``name``; without one, what it is and whose ("suppressive fire of Sam"), or what
  it is and its number ("Blast 2");
- an obstacle: its ``name``; without one, what it is ("door", "window", "wall", "obstacle");
- a light: its ``name``, else "light".
"""

from __future__ import annotations

from engine.model import Encounter, Light, Obstacle, Token, Zone

#: What a zone of each kind is called ("Sam's suppressive fire", "suppressive fire of Sam").
ZONE_KIND_NAMES = {"suppressive": "suppressive fire", "shotgun": "shotgun spread", "blast": "blast",
                   "cone": "cone", "line": "line of fire", "circle": "circle", "rect": "area"}


def token_name(token: Token) -> str:
    """The token's name; its id when it has none."""
    return token.name or token.id


def _capital(s: str) -> str:
    return s[:1].upper() + s[1:]


def _numbered(what: str, ident: str) -> str:
    number = ident.rsplit("-", 1)[-1]
    return f"{_capital(what)} {number}" if number.isdigit() and number != ident else _capital(what)


def zone_name(zone: Zone, encounter: Encounter | None = None) -> str:
    """The zone's name; without one, its kind and owner ("suppressive fire of Sam", the owner
    by :func:`token_name` when ``encounter`` holds it) or its kind and number ("Blast 2")."""
    if zone.name:
        return zone.name
    what = ZONE_KIND_NAMES.get(zone.kind, zone.kind)
    if zone.owner is not None:
        owner = _token(encounter, zone.owner) if encounter is not None else None
        return f"{what} of {token_name(owner) if owner is not None else zone.owner}"
    return _numbered(what, zone.id)


def new_zone_name(kind: str, owner: Token | None, zone_id: str) -> str:
    """The name a new zone is given from its owner and kind: "Sam's suppressive fire";
    without an owner its kind and the number of its id ("Blast 2")."""
    what = ZONE_KIND_NAMES.get(kind, kind)
    if owner is not None:
        return f"{token_name(owner)}'s {what}"
    return _numbered(what, zone_id)


def obstacle_name(obstacle: Obstacle) -> str:
    """The obstacle's name; without one, what it is: "door", "window", "wall" (drawn with the
    Wall tool) or "obstacle"."""
    if obstacle.name:
        return obstacle.name
    if obstacle.door:
        return "door"
    if obstacle.kind == "window":
        return "window"
    if obstacle.id.split("-", 1)[0] == "wall":
        return "wall"
    return "obstacle"


def light_name(light: Light) -> str:
    """The light's name, else "light"."""
    return light.name or "light"


def _token(encounter: Encounter, ident: str) -> Token | None:
    found = encounter.find(ident)
    return found if isinstance(found, Token) else None


def display_name(item, encounter: Encounter | None = None) -> str:
    """The display name of a token, zone, obstacle or light value (by its kind's helper)."""
    if isinstance(item, Token):
        return token_name(item)
    if isinstance(item, Zone):
        return zone_name(item, encounter)
    if isinstance(item, Obstacle):
        return obstacle_name(item)
    if isinstance(item, Light):
        return light_name(item)
    return getattr(item, "name", "") or getattr(item, "id", str(item))


def name_of(encounter: Encounter, ident: str | None) -> str:
    """The display name of the token, obstacle, zone or light with this id; ``ident`` itself
    when the encounter holds none so called (a token gone from the map), "" for None."""
    if ident is None:
        return ""
    found = encounter.find(ident)
    if found is not None:
        return display_name(found, encounter)
    for light in encounter.lights:
        if light.id == ident:
            return light_name(light)
    return ident


def geometry_text(exc: Exception, encounter: Encounter) -> str:
    """The message of a geometry error for a person: an obstacle named by
    :func:`obstacle_name` where geometry/ (which knows ids only) gave its id ("the goal point
    (3.00, 4.00) lies inside Sedan"); any other error's own text."""
    from geometry.errors import InsideObstacleError

    if isinstance(exc, InsideObstacleError) and isinstance(exc.obstacle, str):
        x, y = exc.point
        return f"the {exc.role} point ({x:.2f}, {y:.2f}) lies inside {name_of(encounter, exc.obstacle)}"
    return str(exc)
