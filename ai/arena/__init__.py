"""The arena: tournaments between bots (`tournament`), single games (`play`), their
records (`records`), ratings with intervals (`ratings`, `intervals`) and reports as
text, picture (`report`) and HTML (`html`)."""
from gallerist.ai._lazy import lazy_exports

_EXPORTS = {
    "run_tournament": "tournament", "resume_tournament": "tournament",
    "summarise_records": "tournament", "Tournament": "tournament", "GameFailed": "tournament",
    "GameRecord": "records", "RecordsError": "records", "read_records": "records",
    "replay": "records", "play_game": "play", "format_report": "report",
    "plot_ratings": "report", "write_html_report": "html",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
