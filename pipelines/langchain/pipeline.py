#!/usr/bin/env python3
"""Reference LangChain pipeline (test-only): RecursiveCharacterTextSplitter
(1000/150 characters, add_start_index=True) + BM25 over the chunks, as a
LangChain retriever; writes a passage run or answers ragbench's HTTP
contract (docs/pipelines.md).

    python pipelines/langchain/pipeline.py run --corpus DIR --questions questions.csv --out run.jsonl [--style offsets]
    python pipelines/langchain/pipeline.py serve --corpus DIR --port 0

BM25 is langchain_community's BM25Retriever as a few lines over rank_bm25
(langchain-community is not in the pinned venv): rank_bm25.BM25Okapi at its
defaults (k1 1.5, b 0.75, epsilon 0.25) over each chunk's page_content
split on white space (str.split, BM25Retriever's default preprocess_func),
the query split the same way. One difference, for determinism: equal scores
keep chunk order (BM25Retriever's np.argsort(...)[::-1] puts them in an
order numpy does not promise).

Each chunk's start_index (LangChain's str.find: code points) is checked
against the document: text[start:start + len(chunk)] == chunk.
"""
import os
import sys
from typing import Any, List, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ragbench_contract import pipeline_main  # noqa: E402

from langchain_core.callbacks import CallbackManagerForRetrieverRun  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402
from langchain_text_splitters import RecursiveCharacterTextSplitter  # noqa: E402
from rank_bm25 import BM25Okapi  # noqa: E402


class BM25ChunkRetriever(BaseRetriever):
    """BM25 over LangChain Documents (rank_bm25.BM25Okapi, white-space
    tokens). invoke(query, k=...) returns the top k Documents, best first,
    each with metadata["score"]; equal scores keep the chunks' order."""

    docs: List[Document]
    bm25: Any
    k: int = 4

    @classmethod
    def from_documents(cls, docs, k=4):
        return cls(docs=docs, bm25=BM25Okapi([d.page_content.split() for d in docs]), k=k)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                k: Optional[int] = None) -> List[Document]:
        scores = self.bm25.get_scores(query.split())
        order = sorted(range(len(self.docs)), key=lambda i: -scores[i])  # stable: ties keep chunk order
        out = []
        for i in order[: self.k if k is None else k]:
            d = self.docs[i]
            out.append(Document(page_content=d.page_content, metadata={**d.metadata, "score": float(scores[i])}))
        return out


def split(docs, chunk_size, chunk_overlap):
    """The corpus as LangChain chunks: Documents with metadata source (doc
    id) and start_index (code points), checked against the text."""
    splitter = RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True)
    chunks = splitter.split_documents([Document(page_content=t, metadata={"source": d}) for d, t in docs.items()])
    for c in chunks:
        s = c.metadata["start_index"]
        if s < 0 or docs[c.metadata["source"]][s:s + len(c.page_content)] != c.page_content:
            raise AssertionError(f"chunk of {c.metadata['source']} at {s} is not the document's text there")
    return chunks


def build(docs, chunk_size, chunk_overlap):
    chunks = split(docs, chunk_size, chunk_overlap)
    retriever = BM25ChunkRetriever.from_documents(chunks)
    sys.stderr.write(f"langchain: {len(chunks)} chunks (RecursiveCharacterTextSplitter {chunk_size}/{chunk_overlap})\n")

    def rank(query):
        return [(d.metadata["source"], d.metadata["start_index"], d.metadata["start_index"] + len(d.page_content),
                 d.metadata["score"]) for d in retriever.invoke(query, k=len(chunks))]

    return rank


if __name__ == "__main__":
    pipeline_main(__doc__.split("\n\n")[0], build, chunk_size=1000, chunk_overlap=150)
