"""The Intercept offer (seed 000, Intercept; ``engine.sr5.intercept``): when a drag passes
within an enemy's reach or breaks out of melee, the engine's ``on_moves`` names each enemy
who may intercept. This Action-panel page puts the offer to the GM: **Intercept** takes the
move back (the mover stands where the move began) and opens the attack page for the
interceptor's melee attack at the mover, declared as an Intercept; **Let it pass** keeps
the move. Either way nothing else changes."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout
from engine.names import token_name

from gui.action_panel import ActionPage


class InterceptPage(ActionPage):
    """``offer(encounter, chances)``: show the engine's InterceptChance values for the move
    whose committed result is ``encounter``."""

    title = "Intercept?"

    def __init__(self, panel, gui):
        super().__init__(panel)
        self.gui = gui
        self.chances: tuple = ()
        self._moved = None  # the encounter the move made (still committed: it can be taken back)
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(8, 6, 8, 6)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self._lay.addWidget(self.text)
        self.buttons: list[QPushButton] = []
        self.pass_button = QPushButton("Let it pass (keep the move)")
        self.pass_button.clicked.connect(self.cancel)
        self._lay.addWidget(self.pass_button)
        self._lay.addStretch(1)

    def offer(self, encounter, chances) -> None:
        self.chances = tuple(chances)
        self._moved = encounter
        for b in self.buttons:
            self._lay.removeWidget(b)
            b.deleteLater()
        self.buttons = []
        self.text.setText("\n".join(c.describe(encounter) for c in self.chances)
                          + "\n\nIntercept takes the move back and opens the melee attack.")
        for n, c in enumerate(self.chances):
            who = encounter.token(c.interceptor)
            b = QPushButton(f"Intercept with {token_name(who)}")
            b.clicked.connect(lambda _=False, k=n: self.intercept(k))
            self._lay.insertWidget(1 + n, b)
            self.buttons.append(b)
        self.show_in_panel()

    def intercept(self, index: int = 0):
        """Take the move back and open the interceptor's attack at the mover (an Intercept);
        returns the attack page, or None when the move is no longer the last step (the
        GM did something since: the status bar says so)."""
        c = self.chances[index]
        doc = self.gui.window.document
        if doc.committed.tokens is not self._moved.tokens:  # (the recorder adds to the step, not to its tokens)
            self.gui.window.statusBar().showMessage(
                "Intercept not offered any more: something was done after the move", 10000)
            self.close()
            return None
        doc.undo_stack.undo()
        return self.gui.open_attack(c.interceptor, [c.mover], intercept=True)

    def apply_default(self):
        """Enter: the first interceptor intercepts."""
        return self.intercept(0) if self.chances else None
