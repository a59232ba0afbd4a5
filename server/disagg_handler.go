package server

import (
	"fmt"
	"io"
	"net/http"
	"time"
)

// handler serves one of the front's routes: the context leg, then, only
// when it succeeded, the generation leg, whose answer is relayed
// (TensorRT-LLM's context-first flow,
// tensorrt_llm/serve/openai_disagg_service.py,
// _send_disagg_request_ctx_first).
func (f *front) handler(route *frontRoute) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("reading the request body: %v", err), "invalid_request_error")
			return
		}
		req, err := parseFrontRequest(body)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error(), "invalid_request_error")
			return
		}
		params, lerr := f.contextLeg(r, route, req)
		if lerr != nil {
			lerr.write(w)
			return
		}
		f.generationLeg(w, r, route, req, params, start)
	}
}

// contextLeg sends the context_only request to a context server and
// returns the disaggregated_params of its answer, with ctx_info_endpoint
// set to the server's URL when it left it out.
func (f *front) contextLeg(r *http.Request, route *frontRoute, req frontRequest) (DisaggParams, *legError) {
	body, err := req.contextBody(route)
	if err != nil {
		return DisaggParams{}, &legError{status: http.StatusBadRequest, typ: "invalid_request_error", msg: err.Error()}
	}
	url, release := f.ctx.pick()
	defer release()
	f.metrics.inFlight.WithLabelValues(legContext, url).Inc()
	defer f.metrics.inFlight.WithLabelValues(legContext, url).Dec()
	call := newLegCall(r.Context(), f.opts.Client, legContext, url, f.opts.LegTimeout)
	defer call.close()
	params, lerr := f.readContext(call, route, body, r.Header.Get("Authorization"))
	if lerr != nil {
		f.metrics.observe(legContext, url, lerr.outcome(), call.start)
		return DisaggParams{}, lerr
	}
	f.metrics.observe(legContext, url, outcomeOK, call.start)
	if params.CtxInfoEndpoint == "" {
		params.CtxInfoEndpoint = url
	}
	return params, nil
}

// readContext posts the context leg and reads its answer's params.
func (f *front) readContext(call *legCall, route *frontRoute, body []byte, auth string) (DisaggParams, *legError) {
	resp, err := call.post(route.path, body, auth)
	if err != nil {
		return DisaggParams{}, call.failure(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return DisaggParams{}, call.failure(err)
	}
	params, err := paramsOf(b)
	if err != nil {
		return DisaggParams{}, &legError{status: http.StatusBadGateway, typ: "upstream_error",
			msg: fmt.Sprintf("context server %s: %v", call.url, err)}
	}
	return params, nil
}

// generationLeg sends the generation_only request to a generation server
// and relays its answer or stream.
func (f *front) generationLeg(w http.ResponseWriter, r *http.Request, route *frontRoute, req frontRequest, params DisaggParams, start time.Time) {
	body, err := req.generationBody(params)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), "server_error")
		return
	}
	url, release := f.gen.pick()
	defer release()
	f.metrics.inFlight.WithLabelValues(legGeneration, url).Inc()
	defer f.metrics.inFlight.WithLabelValues(legGeneration, url).Dec()
	call := newLegCall(r.Context(), f.opts.Client, legGeneration, url, f.opts.LegTimeout)
	defer call.close()
	resp, err := call.post(route.path, body, r.Header.Get("Authorization"))
	if err != nil {
		lerr := call.failure(err)
		f.metrics.observe(legGeneration, url, lerr.outcome(), call.start)
		lerr.write(w)
		return
	}
	defer resp.Body.Close()
	var lerr *legError
	if req.stream {
		lerr = f.relayStream(w, call, resp, start)
	} else {
		lerr = f.relayWhole(w, call, resp, start)
	}
	if lerr != nil {
		f.metrics.observe(legGeneration, url, lerr.outcome(), call.start)
		lerr.write(w)
	}
}

// relayWhole relays an answer that does not stream; nothing is written
// when it fails (the caller answers the error).
func (f *front) relayWhole(w http.ResponseWriter, call *legCall, resp *http.Response, start time.Time) *legError {
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return call.failure(err)
	}
	call.answered()
	f.metrics.observe(legGeneration, call.url, outcomeOK, call.start)
	f.metrics.ttft.Observe(time.Since(start).Seconds())
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(b)
	return nil
}
