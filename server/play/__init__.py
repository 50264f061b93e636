"""A person's game against bots, hosted by the server: the GalleristPlay service
(play.proto) and the /play page that plays it in a browser."""
