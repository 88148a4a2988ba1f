"""Commands as iterators of plain objects (events, problems, rows); renderers print them."""
