"""The image work of the web: the fair scheduler and its queues, the detection service,
thread priority, per-address shares and the decoder's own limits. It imports neither
the app nor the server."""
