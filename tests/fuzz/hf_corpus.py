#!/usr/bin/env python3
"""Writes tests/fuzz/hf_corpus/: small safetensors files, config.json files and
sharded indexes, valid and broken, each prefixed with the fuzz target's mode byte
('S' safetensors, 'C' config.json, 'I' index; tests/fuzz/hf_check.hpp).
Deterministic: run it again and nothing changes.   usage: python3 tests/fuzz/hf_corpus.py"""
import json
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'hf_corpus')
SIZES = {'F32': 4, 'F16': 2, 'BF16': 2, 'U8': 1, 'I64': 8}


def safetensors(tensors, header=None, pad=0, tail=b''):
    """tensors: [(name, dtype, shape)], laid out one after another."""
    entries, at = {'__metadata__': {'format': 'pt'}}, 0
    for name, dtype, shape in tensors:
        n = SIZES[dtype]
        for d in shape:
            n *= d
        entries[name] = {'dtype': dtype, 'shape': shape, 'data_offsets': [at, at + n]}
        at += n
    text = (header if header is not None else json.dumps(entries, separators=(',', ':'))).encode()
    text += b' ' * pad
    return struct.pack('<Q', len(text)) + text + bytes((i * 7) % 251 for i in range(at)) + tail


def config(**kw):
    return json.dumps(kw, separators=(',', ':')).encode()


GPT2 = dict(architectures=['GPT2LMHeadModel'], model_type='gpt2', n_embd=8, n_layer=2, n_head=2, n_positions=16,
            vocab_size=11, n_inner=None, activation_function='gelu_new', layer_norm_epsilon=1e-5)
QWEN2 = dict(architectures=['Qwen2ForCausalLM'], model_type='qwen2', hidden_size=16, num_hidden_layers=1,
             num_attention_heads=4, num_key_value_heads=2, intermediate_size=24, vocab_size=10,
             max_position_embeddings=64, rope_theta=1e6, rms_norm_eps=1e-6, hidden_act='silu', tie_word_embeddings=True,
             use_sliding_window=False, rope_scaling=None)
LLAMA = dict(QWEN2, architectures=['LlamaForCausalLM'], model_type='llama', tie_word_embeddings=False)
QWEN3 = dict(QWEN2, architectures=['Qwen3ForCausalLM'], model_type='qwen3', head_dim=8)

FILES = {
    'st_f32': b'S' + safetensors([('a', 'F32', [2, 3]), ('b', 'F32', [3])]),
    'st_mixed': b'S' + safetensors([('w', 'BF16', [4, 2]), ('h', 'F16', [2]), ('m', 'U8', [0]), ('i', 'I64', [1])], pad=5),
    'st_empty': b'S' + safetensors([]),
    'st_overlap': b'S' + safetensors([], header='{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
                                              '"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}', tail=bytes(12)),
    'st_gap': b'S' + safetensors([], header='{"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}', tail=bytes(12)),
    'st_twice': b'S' + safetensors([], header='{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                                            '"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', tail=bytes(4)),
    'st_overflow': b'S' + safetensors([], header='{"a":{"dtype":"F32","shape":[4294967296,4294967296,16],'
                                               '"data_offsets":[0,8]}}', tail=bytes(8)),
    'st_truncated': b'S' + safetensors([('a', 'F32', [8])])[:40],
    'st_huge_header': b'S' + struct.pack('<Q', 1 << 60) + b'{}',
    'cfg_gpt2': b'C' + config(**GPT2),
    'cfg_qwen2': b'C' + config(**QWEN2),
    'cfg_llama': b'C' + config(**LLAMA),
    'cfg_qwen3': b'C' + config(**QWEN3),
    'cfg_rope_scaling': b'C' + config(**dict(LLAMA, rope_scaling={'rope_type': 'llama3', 'factor': 32.0})),
    'cfg_mistral': b'C' + config(**dict(LLAMA, architectures=['MistralForCausalLM'])),
    'cfg_bad_heads': b'C' + config(**dict(GPT2, n_head=3)),
    'idx_two': b'I' + json.dumps({'metadata': {'total_size': 8}, 'weight_map': {
        'a': 'model-00001-of-00002.safetensors', 'b': 'model-00002-of-00002.safetensors'}}).encode(),
    'idx_escape': b'I' + json.dumps({'weight_map': {'a': '../etc/passwd'}}).encode(),
}

if __name__ == '__main__':
    os.makedirs(OUT, exist_ok=True)
    for name, data in FILES.items():
        with open(os.path.join(OUT, name), 'wb') as f:
            f.write(data)
    print(f'{len(FILES)} files in {OUT}')
