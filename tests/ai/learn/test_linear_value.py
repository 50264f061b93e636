"""The linear value end to end: `gallerist selfplay` -> `gallerist train
--linear-value` -> a format 2 model the search takes as its value (eval=mix, eval=model),
its C evaluation equal to the model file's NumPy reference on real positions."""
from __future__ import annotations

import json

import numpy as np
import pytest

from gallerist import engine
from gallerist.cli.main import main



def test_selfplay_then_linear_value_training_gives_a_value_the_search_uses(tmp_path, capsys):
    out, model = tmp_path / "sp", tmp_path / "lin.npz"
    assert main(["selfplay", "mcts:iterations=20", "--games", "3", "--out", str(out),
                 "--seed", "7", "--no-progress"]) == 0
    assert main(["train", str(out), "--out", str(model), "--hidden", "16", "--epochs", "2",
                 "--win-weight", "0", "--linear-value", "100", "--no-progress"]) == 0
    capsys.readouterr()
    card = json.loads((tmp_path / "lin.card.json").read_text())
    assert card["linear_value"]["penalty"] == 100.0
    from gallerist.ai import make_bot
    from gallerist.ai.net.model_file import load_model
    from gallerist.ai.net.packaged import load_evaluator

    m = load_model(str(model))
    assert m.win_skip is not None and not m.win_w.any()
    ev = load_evaluator(str(model), value=True)
    state = engine.new_game(num_players=2, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):       # the C evaluation is the file's NumPy forward pass
        if state.is_chance():
            outcomes = state.chance_outcomes()
            state.apply(outcomes[int(rng.integers(len(outcomes)))][0])
            continue
        viewer = state.current_player
        win_t, money_t, _ = m.forward(state.observation(viewer)[None], 2)
        money, win = ev.values(state)
        assert win[viewer] == pytest.approx(float(win_t[0, 0]), rel=1e-5, abs=1e-6)
        assert money[viewer] == pytest.approx(float(money_t[0, 0]), rel=1e-5, abs=1e-3)
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
    for spec in ("mcts:prior=model,eval=mix", "mcts:eval=model"):
        bot = make_bot(f"{spec},calibrated=false,iterations=50,model={model}", seed=1)
        s = engine.new_game(num_players=2, seed=4)
        assert bot.choose(s.view(s.current_player)) in s.legal_actions()
