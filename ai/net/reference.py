"""The network in NumPy: `Model`, a validated network's weights, and its reference forward
pass (`Model.raw`, `Model.forward`), the specification of the compiled one
(ai/search/_model.pyx's `ModelEvaluator` equals it to 1e-5). The file that holds a Model
and its checks are `model_file`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Tensor seats of the value heads (the observation's seat blocks).
NUM_SEATS = 4
#: The heads (each a weight matrix `<head>_w` and a bias `<head>_b`).
HEADS = ("win", "money", "policy")
#: The skip weights of format 2 (observation -> value heads).
SKIPS = ("win_skip", "money_skip")


@dataclass(frozen=True)
class Model:
    """A validated network (float32 C-contiguous arrays), from `model_file.load_model`.

    Attributes:
        trunk: ((W_i, b_i), ...): W_i of shape (in_i, out_i), ReLU after each layer.
        win_w, win_b, money_w, money_b, policy_w, policy_b: the heads: win logits and
            money / money_scale by tensor seat (4 each), policy logits by action id.
        win_skip, money_skip: format 2's weights from the observation to the value heads
            ((observation_size, 4)), or None (format 1: no linear part).
        money_scale: money in $ = money_scale * the money head's output.
        metadata: the training details (a JSON object).
        source: where it came from (a path), for messages.
    """

    trunk: tuple[tuple[np.ndarray, np.ndarray], ...]
    win_w: np.ndarray
    win_b: np.ndarray
    money_w: np.ndarray
    money_b: np.ndarray
    policy_w: np.ndarray
    policy_b: np.ndarray
    money_scale: float
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = "<memory>"
    win_skip: np.ndarray | None = None
    money_skip: np.ndarray | None = None

    @property
    def hidden(self) -> tuple[int, ...]:
        """The widths of the trunk's layers."""
        return tuple(int(w.shape[1]) for w, _ in self.trunk)

    def raw(self, obs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The network's outputs on a batch (B, observation_size) or one observation:
        (win logits (B, 4), money / money_scale (B, 4), policy logits (B, 183)) by tensor
        seat, in float32 arithmetic."""
        x = np.asarray(obs, dtype=np.float32)
        single = x.ndim == 1
        x = np.atleast_2d(x)
        size = self.trunk[0][0].shape[0]
        if x.ndim != 2 or x.shape[1] != size:
            raise ValueError(f"observations must have shape (batch, {size}), got {np.shape(obs)}")
        h = x
        for w, b in self.trunk:
            h = np.maximum(h @ w + b, np.float32(0))
        win, money = h @ self.win_w + self.win_b, h @ self.money_w + self.money_b
        if self.win_skip is not None and self.money_skip is not None:
            win, money = win + x @ self.win_skip, money + x @ self.money_skip
        out = (win, money, h @ self.policy_w + self.policy_b)
        return tuple(o[0] for o in out) if single else out   # type: ignore[return-value]

    def forward(self, obs: Any, num_players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(win shares (B, 4), money in $ (B, 4), policy logits (B, 183)) by tensor seat
        for observations of an n-player game: the win softmax over the n present seats
        (seats >= n get 0; solo 1.0 for seat 0), money = money_scale * raw output."""
        if not 1 <= num_players <= NUM_SEATS:
            raise ValueError(f"num_players must be 1..{NUM_SEATS}, got {num_players}")
        logits, money, policy = self.raw(obs)
        z = logits[..., :num_players]
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        win = np.zeros_like(logits)
        win[..., :num_players] = e / e.sum(axis=-1, keepdims=True)
        return win, np.float32(self.money_scale) * money, policy

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights by their file keys (trunk_w0, ..., policy_b)."""
        out: dict[str, np.ndarray] = {}
        for i, (w, b) in enumerate(self.trunk):
            out[f"trunk_w{i}"], out[f"trunk_b{i}"] = w, b
        for head in HEADS:
            out[f"{head}_w"], out[f"{head}_b"] = getattr(self, f"{head}_w"), getattr(self, f"{head}_b")
        for key in SKIPS:
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out
