"""SQLite lives here and nowhere else: connection (`connect`), schema and migrations (`schema`),
writes (`writes`) and read queries (`queries`)."""
