package server

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// requireKey lets through only the requests that carry the header
// "Authorization: Bearer KEY"; the others get 401 and an OpenAI error
// body (type invalid_request_error, code invalid_api_key). An empty key
// lets every request through.
func requireKey(key string, h http.Handler) http.Handler {
	if key == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || token == "" {
			refuseKey(w, "no API key: send the header Authorization: Bearer KEY, KEY as given to kvctl serve --api-key or $KVCTL_API_KEY")
			return
		}
		if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(key)) != 1 {
			refuseKey(w, "incorrect API key provided")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// refuseKey answers 401 as OpenAI does.
func refuseKey(w http.ResponseWriter, msg string) {
	e := newAPIError(msg, "invalid_request_error")
	code := "invalid_api_key"
	e.Error.Code = &code
	w.Header().Set("WWW-Authenticate", "Bearer")
	writeJSON(w, http.StatusUnauthorized, e)
}
