"""The one configurable Transformer behind every page.

One module family, configured by `TransformerConfig`, covers the four families of slides 17-37
(encoder-only, decoder-only, encoder-decoder, prefix-LM) through masks and flags rather than classes,
and the four steps of slides 40-51 that turn an encoder-decoder into a decoder-only model:

  (1) share_cross_self       cross-attention reuses the self-attention projections of its layer
  (2) share_encoder_decoder  the encoder runs on the decoder's layers
  (3) layer_aligned          decoder layer l reads what encoder layer l reads (its normalised input),
                             instead of every decoder layer reading the final encoder output
  (4) causal_encoder         the encoder is causal and target positions continue after the input
  +   joint_softmax          self- and cross-attention merge into one softmax over
                             [encoder layer-l keys ; causal target prefix]: exactly decoder-only

Two more options each put back one difference that remains after step 4, so the numeric check of
slide 51 can measure what it costs: layer_aligned_reads="output" and restart_target_positions.

Layers are pre-LayerNorm (as in GPT-2/T5), positions are learned, and there is no dropout: the models
are tiny and every run must be reproducible from its seed.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields

import torch
import torch.nn.functional as F
from torch import nn

from explorer import masks
from explorer.costs import check_size

# One intra-op thread for the whole process. Results are bit-reproducible only at a fixed thread count
# (summation order changes with it, and training amplifies the difference), and on a shared classroom
# server tiny models lose far more to thread contention than they gain (a training step measured 8 ms
# on one thread vs 426 ms on two, on a loaded 2-core machine). Call torch.set_num_threads after
# importing to trade this away in a notebook.
torch.set_num_threads(1)

ARCHITECTURES = ("decoder", "encoder", "encoder_decoder", "prefix_lm")
STEP_FLAGS = ("share_cross_self", "share_encoder_decoder", "layer_aligned", "causal_encoder")
ALIGNED_READS = ("input", "output")  # values of layer_aligned_reads
PUT_BACK_OPTIONS = ("layer_aligned_reads", "restart_target_positions")  # newer than some shipped results


@dataclass(frozen=True)
class TransformerConfig:
    arch: str = "decoder"  # one of ARCHITECTURES
    vocab_size: int = 64  # input token ids
    n_out: int | None = None  # output classes per position; None = vocab_size (a language-model head)
    d_model: int = 64  # residual stream width
    n_heads: int = 4  # attention heads per layer; d_model must divide evenly
    n_layers: int = 2  # layers per stack
    d_ff: int | None = None  # MLP hidden width; None = 4 * d_model
    max_len: int = 128  # learned positions; also bounds input + target length
    window: int | None = None  # local self-attention window (keys fewer than `window` positions away)
    share_cross_self: bool = False  # step 1
    share_encoder_decoder: bool = False  # step 2
    layer_aligned: bool = False  # step 3
    causal_encoder: bool = False  # step 4
    joint_softmax: bool = False  # the final change: one softmax, exactly decoder-only
    # with layer_aligned, what decoder layer l reads from encoder layer l: "input" (what layer l reads, as
    # decoder-only does) or "output" (what layer l produces, normalised by its ln1: one layer too deep)
    layer_aligned_reads: str = "input"
    # with causal_encoder, target positions restart at 0 instead of continuing at n after the input
    restart_target_positions: bool = False

    def __post_init__(self) -> None:
        if self.arch not in ARCHITECTURES:
            raise ValueError(f"arch must be one of {ARCHITECTURES}, got {self.arch!r}")
        for name in ("vocab_size", "d_model", "n_heads", "n_layers", "max_len"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})")
        if self.window is not None and self.window < 1:
            raise ValueError(f"window must be >= 1 or None, got {self.window}")
        uses_steps = any(getattr(self, f) for f in STEP_FLAGS) or self.joint_softmax
        if uses_steps and self.arch != "encoder_decoder":
            raise ValueError("the four-step flags only apply to arch='encoder_decoder'")
        if self.joint_softmax and not (self.share_cross_self and self.layer_aligned):
            raise ValueError(
                "joint_softmax needs share_cross_self (one set of projections) and layer_aligned (a memory per layer)"
            )
        if self.layer_aligned_reads not in ALIGNED_READS:
            raise ValueError(f"layer_aligned_reads must be one of {ALIGNED_READS}, got {self.layer_aligned_reads!r}")
        if self.layer_aligned_reads != "input" and not self.layer_aligned:
            raise ValueError("layer_aligned_reads only applies with layer_aligned (step 3)")
        if self.restart_target_positions and not self.causal_encoder:
            raise ValueError(
                "restart_target_positions only applies with causal_encoder (before step 4 target "
                "positions restart at 0 anyway)"
            )

    @property
    def ff_width(self) -> int:
        return self.d_ff or 4 * self.d_model

    @property
    def out_size(self) -> int:
        return self.n_out or self.vocab_size

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    @property
    def has_cross_sublayer(self) -> bool:
        """A separate cross-attention sublayer exists (encoder-decoder without the joint softmax)."""
        return self.arch == "encoder_decoder" and not self.joint_softmax

    def to_dict(self) -> dict:
        """Every field, but the put-back options only when set, so the configs recorded in results and
        checkpoints shipped before those options existed still equal what they describe."""
        d = asdict(self)
        for f in fields(self):
            if f.name in PUT_BACK_OPTIONS and d[f.name] == f.default:
                del d[f.name]
        return d


@dataclass
class Output:
    """What a forward pass returns. Optional fields are filled only when asked for."""

    logits: torch.Tensor  # [B, T, out_size] for the target stream
    attentions: dict[str, list[torch.Tensor]] = field(default_factory=dict)  # role -> per layer [B, H, Tq, Tk]
    states: dict[str, list[torch.Tensor]] = field(
        default_factory=dict
    )  # stack -> residual entering each layer, then final
    keys_values: dict[str, list[tuple[torch.Tensor, torch.Tensor]]] = field(default_factory=dict)  # stack -> per layer


class Attention(nn.Module):
    """Multi-head attention with an explicit-softmax path (returns weights) and a fused path."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.o = nn.Linear(d_model, d_model)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        return x.view(b, t, self.n_heads, d // self.n_heads).transpose(1, 2)  # [B, H, T, dh]

    def project_kv(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self._split(self.k(x)), self._split(self.v(x))  # [B, H, T, dh] each

    def forward(
        self,
        x: torch.Tensor,
        kv: tuple[torch.Tensor, torch.Tensor],
        mask: torch.Tensor | None,
        need_weights: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        q = self._split(self.q(x))  # [B, H, Tq, dh]
        k, v = kv  # [B, H, Tk, dh]
        if mask is not None:
            mask = mask.to(q.device)  # masks are built on the CPU; a no-op there, a copy on an accelerator
        if need_weights:
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # [B, H, Tq, Tk]
            if mask is not None:
                scores = scores + mask
            weights = scores.softmax(dim=-1)
            y = weights @ v  # [B, H, Tq, dh]
        else:
            weights = None
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        b, h, t, dh = y.shape
        return self.o(y.transpose(1, 2).reshape(b, t, h * dh)), weights


class MLP(nn.Module):
    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        self.up = nn.Linear(d_model, d_ff)
        self.down = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    """One pre-LN layer: self-attention, an optional cross-attention sublayer, then the MLP."""

    def __init__(self, cfg: TransformerConfig, with_cross: bool) -> None:
        super().__init__()
        d = cfg.d_model
        self.ln1 = nn.LayerNorm(d)
        self.attn = Attention(d, cfg.n_heads)
        if with_cross:
            self.ln_cross = nn.LayerNorm(d)
            # step 1: no projections of its own; the layer's self-attention serves both roles
            self.cross_attn = None if cfg.share_cross_self else Attention(d, cfg.n_heads)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = MLP(d, cfg.ff_width)

    @property
    def cross(self) -> Attention:
        return self.cross_attn if self.cross_attn is not None else self.attn


class KVCache:
    """Preallocated keys and values of a causal stack, so a new turn only computes its new tokens.

    Buffers are [layers, B, H, capacity, dh]; writing a turn copies into place (no concatenation),
    and attention reads a view of the filled prefix.
    """

    def __init__(
        self, cfg: TransformerConfig, batch_size: int, capacity: int | None = None, dtype: torch.dtype = torch.float32
    ) -> None:
        self.capacity = capacity or cfg.max_len
        shape = (cfg.n_layers, batch_size, cfg.n_heads, self.capacity, cfg.head_dim)
        self.k = torch.zeros(shape, dtype=dtype)
        self.v = torch.zeros(shape, dtype=dtype)
        self.length = 0  # tokens already cached

    def write(self, layer: int, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        end = self.length + k.shape[2]
        if end > self.capacity:
            raise ValueError(f"the KV cache holds {self.capacity} tokens; this turn would need {end}")
        self.k[layer, :, :, self.length : end] = k
        self.v[layer, :, :, self.length : end] = v
        return self.k[layer, :, :, :end], self.v[layer, :, :, :end]

    def advance(self, n_tokens: int) -> None:
        self.length += n_tokens

    def rewind(self, length: int) -> None:
        """Forget every token after the first `length` (their slots are overwritten by the next write)."""
        if not 0 <= length <= self.length:
            raise ValueError(f"cannot rewind a cache of {self.length} tokens to {length}")
        self.length = length


class _Recorder:
    """Collects attention weights, residual states and keys/values when a caller asks for them."""

    def __init__(self, weights: bool, states: bool) -> None:
        self.weights, self.states = weights, states
        self.out = Output(logits=torch.empty(0))

    def attention(self, role: str, w: torch.Tensor | None) -> None:
        if self.weights:
            self.out.attentions.setdefault(role, []).append(w)

    def state(self, stack: str, h: torch.Tensor, kv: tuple[torch.Tensor, torch.Tensor] | None = None) -> None:
        if self.states:
            self.out.states.setdefault(stack, []).append(h)
            if kv is not None:
                self.out.keys_values.setdefault(stack, []).append(kv)


class Transformer(nn.Module):
    def __init__(self, cfg: TransformerConfig) -> None:
        check_size(cfg)  # refuse a model too big for this server before allocating any of it
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.d_model)  # E, shared by both stacks
        self.pos_emb = nn.Embedding(cfg.max_len, cfg.d_model)  # p_t, shared by both stacks
        # `blocks` is the decoder stack (or the only stack), so a decoder-only state dict loads by name
        self.blocks = nn.ModuleList(Block(cfg, cfg.has_cross_sublayer) for _ in range(cfg.n_layers))
        if cfg.arch == "encoder_decoder":
            if not cfg.share_encoder_decoder:  # step 2 removes this second stack
                self.encoder_blocks = nn.ModuleList(Block(cfg, with_cross=False) for _ in range(cfg.n_layers))
            self.encoder_ln_f = nn.LayerNorm(cfg.d_model)
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.out_size)
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear):
            nn.init.zeros_(module.bias)

    @property
    def encoder_stack(self) -> nn.ModuleList:
        return self.blocks if self.cfg.share_encoder_decoder else self.encoder_blocks

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())  # shared modules are counted once

    # --- masks -------------------------------------------------------------------------------------
    def _self_mask(self, n_queries: int, n_keys: int, causal: bool, prefix_len: int, dtype) -> torch.Tensor | None:
        """The additive self-attention mask, or None when every key is visible (the kernel then skips it)."""
        if self.cfg.window is None and (not causal or n_queries == 1) and not prefix_len:
            return None  # bidirectional, or one new token after a cache: nothing is hidden
        if prefix_len:
            mask = masks.prefix_lm(prefix_len, n_keys, dtype)[n_keys - n_queries :]
        elif causal:
            mask = masks.causal(n_queries, n_keys, dtype)
        else:
            mask = masks.bidirectional(n_queries, n_keys, dtype)
        return mask if self.cfg.window is None else masks.local_window(mask, self.cfg.window)

    # --- embedding ---------------------------------------------------------------------------------
    def _embed(self, tokens: torch.Tensor, start: int) -> torch.Tensor:
        end = start + tokens.shape[1]
        if end > self.cfg.max_len:
            raise ValueError(f"positions up to {end} requested; this model has max_len={self.cfg.max_len}")
        pos = torch.arange(start, end, device=tokens.device)
        return self.tok_emb(tokens) + self.pos_emb(pos)  # h^(0)_t = E[i_t] + p_t, [B, T, d]

    # --- stacks ------------------------------------------------------------------------------------
    def _encode(self, tokens: torch.Tensor, rec: _Recorder) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Run the encoder; return its normalised final output and what each layer hands to step 3."""
        h = self._embed(tokens, 0)
        n = tokens.shape[1]
        mask = self._self_mask(n, n, causal=self.cfg.causal_encoder, prefix_len=0, dtype=h.dtype)
        reads_output = self.cfg.layer_aligned_reads == "output"
        layer_reads = []  # per layer, what step 3 hands to decoder layer l
        for block in self.encoder_stack:
            x = block.ln1(h)  # what encoder layer l reads
            kv = block.attn.project_kv(x)
            rec.state("encoder", h, kv)
            a, w = block.attn(x, kv, mask, rec.weights)
            rec.attention("encoder_self", w)
            h = h + a
            h = h + block.mlp(block.ln2(h))
            layer_reads.append(block.ln1(h) if reads_output else x)  # its output, or its input
        rec.state("encoder", h)
        return self.encoder_ln_f(h), layer_reads

    def _decode(
        self,
        h: torch.Tensor,
        self_mask: torch.Tensor,
        memories: list[torch.Tensor] | None,
        cache: KVCache | None,
        rec: _Recorder,
        stack: str,
    ) -> torch.Tensor:
        """Run the decoder stack (or the only stack) over residual stream `h`."""
        joint = self.cfg.joint_softmax
        for layer, block in enumerate(self.blocks):
            x = block.ln1(h)
            kv = block.attn.project_kv(x)
            rec.state(stack, h, kv)
            if cache is not None:
                kv = cache.write(layer, *kv)
            if joint:  # one softmax over [encoder layer-l keys ; causal target prefix]
                mem_k, mem_v = block.attn.project_kv(memories[layer])
                kv = (torch.cat([mem_k, kv[0]], dim=2), torch.cat([mem_v, kv[1]], dim=2))
            a, w = block.attn(x, kv, self_mask, rec.weights)
            rec.attention("joint" if joint else f"{stack}_self", w)
            h = h + a
            if memories is not None and not joint:
                xc = block.ln_cross(h)
                a, w = block.cross(xc, block.cross.project_kv(memories[layer]), None, rec.weights)
                rec.attention("cross", w)
                h = h + a
            h = h + block.mlp(block.ln2(h))
        rec.state(stack, h)
        return h

    def forward(
        self,
        tokens: torch.Tensor,
        target: torch.Tensor | None = None,
        *,
        prefix_len: int = 0,
        cache: KVCache | None = None,
        need_weights: bool = False,
        return_states: bool = False,
        stale_cache_ok: bool = False,
    ) -> Output:
        """Run the model.

        tokens:     [B, n] the input (encoder-decoder) or the whole sequence (single-stack models)
        target:     [B, m] decoder input, encoder-decoder only (BOS then the target shifted right)
        prefix_len: prefix-LM only: the first `prefix_len` tokens attend bidirectionally
        cache:      keys/values of earlier turns; `tokens` are the new tokens (decoder only, unless
                    stale_cache_ok)
        stale_cache_ok: let an encoder or prefix-LM use `cache` too, knowing that its cached keys/values
                    are stale (old tokens would have read the new ones): the new tokens read the cached
                    ones plus each other, and nothing old is recomputed. The cache page measures the error
                    this makes; a causal model is unaffected (its cache is exact anyway).
        """
        cfg = self.cfg
        rec = _Recorder(need_weights, return_states)
        if cfg.arch == "encoder_decoder":
            if target is None:
                raise ValueError("an encoder-decoder needs `target` (the decoder input)")
            if cache is not None:
                raise ValueError("the KV cache is implemented for the decoder-only stack")
            memory, layer_reads = self._encode(tokens, rec)
            n, m = tokens.shape[1], target.shape[1]
            # step 4: target positions continue after the input
            start = n if cfg.causal_encoder and not cfg.restart_target_positions else 0
            h = self._embed(target, start)
            if cfg.joint_softmax:
                mask = masks.joint(n, m, h.dtype)
                if cfg.window is not None:
                    mask = masks.local_window(mask, cfg.window)
            else:
                mask = self._self_mask(m, m, causal=True, prefix_len=0, dtype=h.dtype)
            memories = layer_reads if cfg.layer_aligned else [memory] * cfg.n_layers
            h = self._decode(h, mask, memories, None, rec, "decoder")
        else:
            if target is not None:
                raise ValueError(f"arch={cfg.arch!r} takes one sequence; `target` is for encoder_decoder")
            if cache is not None and cfg.arch != "decoder" and not stale_cache_ok:
                raise ValueError(
                    "only a causal (decoder) model can reuse a KV cache: "
                    "bidirectional tokens change when new tokens arrive "
                    "(pass stale_cache_ok=True to measure the error of reusing it anyway)"
                )
            start = cache.length if cache is not None else 0
            h = self._embed(tokens, start)
            t = tokens.shape[1]
            mask = self._self_mask(t, start + t, causal=cfg.arch != "encoder", prefix_len=prefix_len, dtype=h.dtype)
            stack = "encoder" if cfg.arch == "encoder" else "decoder"
            h = self._decode(h, mask, None, cache, rec, stack)
            if cache is not None:
                cache.advance(t)
        rec.out.logits = self.head(self.ln_f(h))  # [B, T, out_size]
        return rec.out
