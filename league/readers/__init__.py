"""The reader experiment (docs/readers.md): readers forecast beside the council on the league's page, through a
write service apart from the read-only API. ``rules`` (pure: validation and measures), ``book`` (the readers'
book), ``service`` (the write service), ``consensus`` (what the page discloses of the council to a reader)."""
