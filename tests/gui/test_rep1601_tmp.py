from tests.gui.test_picture_oracle import replay, quiet_messages  # noqa: F401

STEPS = ("open_window(demo=0); export(view='player'); export(view='player'); delete(group='zones', i=9971); "
         "pan(dx=27, dy=106); delete(group='tokens', i=53); pan(dx=299, dy=130); delete(group='tokens', i=1496)")

def test_rep(qtbot, tmp_path, quiet_messages):
    replay(tmp_path, STEPS, every=True)
