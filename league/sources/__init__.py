"""The cited sources' fetch records (docs/experiments.md, "Fetch records"): the league fetches each link a counted
answer cites, after the answer is sealed, and seals what it got (HTTP status, time, the body's SHA-256, the
publication time the page declares), so that a shared link counts as shared only with a record of what it was."""
