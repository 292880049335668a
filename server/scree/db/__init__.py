"""SQLite lives here and nowhere else: connection (`connect`: which SQLite, what a file is, fault
messages), schema and migrations (`schema`), writes (`writes`), read queries (`queries`), the
crash-safety check (`invariants`), one read snapshot for several queries (`snapshot`), the embedding
cache's table (`embedcache`), giving space back (`compact`), the keyword rows of Chinese, Japanese
and Korean text (`cjk`: pure, their bigrams) and the literal rows (`literal`: pure, a chunk's punctuated
tokens for the trigram index)."""
