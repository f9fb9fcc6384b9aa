"""Stance heights (issue 2 section 3 defaults)."""

import pytest

from geometry.bodies import STANCE_BODY, body_height, eye_height
from geometry.errors import InvalidInputError


@pytest.mark.parametrize("stance,height,eye", [
    ("standing", 1.8, 1.6), ("crouched", 1.2, 1.0), ("prone", 0.4, 0.3),
])
def test_stance_heights_are_the_issue_defaults(stance, height, eye):
    assert body_height(stance) == height
    assert eye_height(stance) == eye
    assert STANCE_BODY[stance] == (height, eye)


def test_unknown_stance_is_a_clear_error():
    with pytest.raises(InvalidInputError, match="unknown stance 'kneeling'.*standing"):
        body_height("kneeling")
