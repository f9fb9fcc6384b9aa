"""A fourth rule system that lives only in the test folder: "cover only".

Its whole rule: the cover class between two tokens, as a number the GM adds to a roll
(``Settings.values``: none 0, partial 1, good 2, full 4 by default), plus a token's own
``toughness``. No actions but Move, no movement limit. It proves that a new system is one
package: registered with :func:`engine.rules.register`, nothing outside it changes.
"""
