package api

import (
	"net/http"

	"paycore/internal/infra/config"
)

// NewHTTPServer is the http.Server of the public API: h behind the connection limits of
// cfg. A request must deliver its headers within HTTPReadHeaderTimeout and its whole body
// within HTTPReadTimeout; its answer must be written within HTTPWriteTimeout of the
// headers' arrival (a client that does not read it is cut off); a keep-alive connection is
// closed after HTTPIdleTimeout without a request; headers over HTTPMaxHeaderBytes are
// answered 431.
func NewHTTPServer(cfg config.Config, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cfg.HTTPReadHeaderTimeout,
		ReadTimeout:       cfg.HTTPReadTimeout,
		WriteTimeout:      cfg.HTTPWriteTimeout,
		IdleTimeout:       cfg.HTTPIdleTimeout,
		MaxHeaderBytes:    cfg.HTTPMaxHeaderBytes,
	}
}

// NewMetricsServer serves metrics (Server.MetricsHandler) at GET /metrics, and nothing
// else, for the listener at PAYCORE_METRICS_ADDR, under the same connection limits as the
// API.
func NewMetricsServer(cfg config.Config, metrics http.Handler) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	return NewHTTPServer(cfg, mux)
}
