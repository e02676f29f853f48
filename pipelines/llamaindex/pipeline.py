#!/usr/bin/env python3
"""Reference LlamaIndex pipeline (test-only): SentenceSplitter (256/32
cl100k_base tokens) + llama-index-retrievers-bm25's BM25Retriever; writes a
passage run or answers ragbench's HTTP contract (docs/pipelines.md).

    python pipelines/llamaindex/pipeline.py run --corpus DIR --questions questions.csv --out run.jsonl [--style offsets]
    python pipelines/llamaindex/pipeline.py serve --corpus DIR --port 0

SentenceSplitter at its defaults but the size: chunk_size 256 and
chunk_overlap 32 tokens (its tokenizer: tiktoken cl100k_base, whose BPE file
llama-index-core ships), about the LangChain pipeline's 1000 characters (its
default 1024/200 would give chunks of about 4,000 characters: a tenth of a
corpus each); paragraph separator "\\n\\n\\n", NLTK's punkt sentences (also
shipped). Node ids are "doc#i" (id_func) so nothing depends on random
UUIDs. BM25Retriever.from_defaults at its defaults (bm25s BM25, English
stop words and PyStemmer's English stemmer, token pattern \\b\\w\\w+\\b);
every node is retrieved (similarity_top_k = the node count) and the ranking
cut at k, so the run and the server agree for any k.

Each node's start_char_idx/end_char_idx (LlamaIndex locates the node's
text with str.find: code points) is checked against its document:
text[start:end] == node text.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ragbench_contract import pipeline_main  # noqa: E402

from llama_index.core import Document  # noqa: E402
from llama_index.core.node_parser import SentenceSplitter  # noqa: E402
from llama_index.retrievers.bm25 import BM25Retriever  # noqa: E402


def split(docs, chunk_size, chunk_overlap):
    """The corpus as LlamaIndex nodes (ref_doc_id = doc id, char offsets in
    code points), checked against the text."""
    splitter = SentenceSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                                id_func=lambda i, doc: f"{doc.id_}#{i}")
    nodes = splitter.get_nodes_from_documents([Document(text=t, id_=d) for d, t in docs.items()])
    for n in nodes:
        s, e = n.start_char_idx, n.end_char_idx
        if s is None or e is None or docs[n.ref_doc_id][s:e] != n.get_content():
            raise AssertionError(f"node {n.node_id} at [{s}, {e}) is not its document's text there")
    return nodes


def build(docs, chunk_size, chunk_overlap):
    nodes = split(docs, chunk_size, chunk_overlap)
    retriever = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=len(nodes))
    sys.stderr.write(f"llamaindex: {len(nodes)} nodes (SentenceSplitter {chunk_size}/{chunk_overlap})\n")

    def rank(query):
        return [(h.node.ref_doc_id, h.node.start_char_idx, h.node.end_char_idx, h.score)
                for h in retriever.retrieve(query)]

    return rank


if __name__ == "__main__":
    pipeline_main(__doc__.split("\n\n")[0], build, chunk_size=256, chunk_overlap=32)
