#!/usr/bin/env python3
"""Writes tests/fuzz/hf_corpus/: small safetensors files, config.json files,
sharded indexes and tokenizer.json files, valid and broken, each prefixed with the
fuzz target's mode byte ('S' safetensors, 'C' config.json, 'I' index, 'T'
tokenizer.json; tests/fuzz/hf_check.hpp).
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

# tokenizer.json (hf_tokenizer_read) for a model of 600 tokens (hf_fuzz_vocab).
GPT2_RE = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"
LLAMA3_RE = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
             "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
QWEN2_RE = LLAMA3_RE.replace('\\p{N}{1,3}', '\\p{N}')


def byte_chars():
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    n, out = 0, {}
    for b in range(256):
        out[b] = chr(b) if b in bs else chr(256 + n)
        n += b not in bs
    return [out[b] for b in range(256)]


def split_bytes(regex):
    return {'type': 'Sequence', 'pretokenizers': [
        {'type': 'Split', 'pattern': {'Regex': regex}, 'behavior': 'Isolated', 'invert': False},
        {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True, 'use_regex': False}]}


def template(name, i):
    return {'type': 'TemplateProcessing', 'single': [{'SpecialToken': {'id': name, 'type_id': 0}},
                                                     {'Sequence': {'id': 'A', 'type_id': 0}}],
            'special_tokens': {name: {'id': name, 'ids': [i], 'tokens': [name]}}}


def tokenizer(model_type='BPE', normalizer=None, pre_tokenizer=None, post_processor=None, ignore_merges=False,
              pairs=False, extra=None, merges=None):
    """A byte-level tokenizer: the 256 byte characters, 'Ġh' 'Ġhe' 'll' by merges, <|endoftext|> = 262."""
    vocab = {c: i for i, c in enumerate(byte_chars())}
    vocab.update({'Ġh': 256, 'Ġhe': 257, 'll': 258, 'Ġhell': 259, 'Ġhello': 260, '<|endoftext|>': 262})
    vocab.update(extra or {})
    merges = merges or ['Ġ h', 'Ġh e', 'l l', 'Ġhe ll', 'Ġhell o']
    return json.dumps({
        'version': '1.0', 'added_tokens': [{'id': 262, 'content': '<|endoftext|>', 'single_word': False, 'lstrip': False,
                                            'rstrip': False, 'normalized': False, 'special': True}],
        'normalizer': normalizer,
        'pre_tokenizer': pre_tokenizer or {'type': 'ByteLevel', 'add_prefix_space': False, 'use_regex': True},
        'post_processor': post_processor, 'decoder': {'type': 'ByteLevel'},
        'model': {'type': model_type, 'unk_token': None, 'ignore_merges': ignore_merges, 'vocab': vocab,
                  'merges': [m.split(' ') for m in merges] if pairs else merges}}, ensure_ascii=False).encode()


def sentencepiece(metaspace=False):
    """<unk> <s> </s>, <0x00>..<0xFF>, ▁ h e l o and their merges, byte fallback."""
    vocab = {'<unk>': 0, '<s>': 1, '</s>': 2}
    vocab.update({f'<0x{b:02X}>': 3 + b for b in range(256)})
    vocab.update({c: 259 + i for i, c in enumerate(['▁', 'h', 'e', 'l', 'o', '▁h', '▁he', 'll', '▁hell', '▁hello'])})
    specials = [{'id': i, 'content': c, 'single_word': False, 'lstrip': False, 'rstrip': False, 'normalized': False,
                 'special': True} for i, c in enumerate(['<unk>', '<s>', '</s>'])]
    return json.dumps({
        'version': '1.0', 'added_tokens': specials,
        'normalizer': None if metaspace else {'type': 'Sequence', 'normalizers': [
            {'type': 'Prepend', 'prepend': '▁'}, {'type': 'Replace', 'pattern': {'String': ' '}, 'content': '▁'}]},
        'pre_tokenizer': {'type': 'Metaspace', 'replacement': '▁', 'prepend_scheme': 'first', 'split': True}
        if metaspace else None,
        'post_processor': template('<s>', 1),
        'decoder': {'type': 'Sequence', 'decoders': [
            {'type': 'Replace', 'pattern': {'String': '▁'}, 'content': ' '}, {'type': 'ByteFallback'}, {'type': 'Fuse'},
            {'type': 'Strip', 'content': ' ', 'start': 1, 'stop': 0}]},
        'model': {'type': 'BPE', 'unk_token': '<unk>', 'fuse_unk': True, 'byte_fallback': True, 'vocab': vocab,
                  'merges': ['▁ h', '▁h e', 'l l', '▁he ll', '▁hell o']}}, ensure_ascii=False).encode()


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
    'tok_gpt2': b'T' + tokenizer(),
    'tok_qwen2': b'T' + tokenizer(normalizer={'type': 'NFC'}, pre_tokenizer=split_bytes(QWEN2_RE)),
    'tok_llama3': b'T' + tokenizer(pre_tokenizer=split_bytes(LLAMA3_RE), ignore_merges=True, pairs=True,
                                   post_processor=template('<|endoftext|>', 262)),
    'tok_llama2': b'T' + sentencepiece(),
    'tok_metaspace': b'T' + sentencepiece(metaspace=True),
    'tok_wordpiece': b'T' + tokenizer(model_type='WordPiece'),
    'tok_regex': b'T' + tokenizer(pre_tokenizer=split_bytes('\\w+')),
    'tok_big_id': b'T' + tokenizer(extra={'Ġhello': 5000}),
    'tok_bad_merge': b'T' + tokenizer(merges=['Ġ zz']),
}

if __name__ == '__main__':
    os.makedirs(OUT, exist_ok=True)
    for name, data in FILES.items():
        with open(os.path.join(OUT, name), 'wb') as f:
            f.write(data)
    print(f'{len(FILES)} files in {OUT}')
