"""Search for mteb retrieval: the FAISS index backend, and rerankers."""
