package relevance
