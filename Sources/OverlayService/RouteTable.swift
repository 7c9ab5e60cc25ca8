extension OverlayService {
    /// Every endpoint of overlayd (see `Route`). Channel routes also answer under
    /// `/channels/{name}`; the index at `GET /` lists them in this order.
    static let routes: [Route] = [
        Route("GET", "/", .server, .read) { service, _, _ throws(APIError) in .response(service.index()) },
        Route("POST", "/messages", .channel, .write) { service, request, parameters throws(APIError) in
            try service.postMessage(request, parameters)
        },
        Route("GET", "/messages", .channel, .read) { service, request, parameters throws(APIError) in
            .response(try service.listMessages(request, parameters))
        },
        Route("GET", "/messages/{id}", .channel, .read) { service, _, parameters throws(APIError) in
            .response(try service.getMessage(parameters))
        },
        Route("PATCH", "/messages/{id}", .channel, .write) { service, request, parameters throws(APIError) in
            try service.patchMessage(request, parameters)
        },
        Route("DELETE", "/messages/{id}", .channel, .write) { service, _, parameters throws(APIError) in
            try service.deleteMessage(parameters)
        },
        Route("GET", "/overlay", .channel, .read) { service, request, parameters throws(APIError) in
            try service.getOverlay(request, parameters)
        },
        Route("PUT", "/orientation", .channel, .write) { service, request, parameters throws(APIError) in
            try service.putSetting(.orientation, request, parameters)
        },
        Route("PUT", "/device", .channel, .write) { service, request, parameters throws(APIError) in
            try service.putSetting(.device, request, parameters)
        },
        Route("GET", "/statusbar", .channel, .read) { service, _, parameters throws(APIError) in
            .response(service.getStatusBar(parameters))
        },
        Route("PUT", "/statusbar", .channel, .write) { service, request, parameters throws(APIError) in
            try service.putStatusBar(request, parameters)
        },
        Route("PUT", "/statusbar/controllers", .channel, .write) { service, request, parameters throws(APIError) in
            try service.putControllers(request, parameters)
        },
        Route("GET", "/events", .channel, .read) { service, request, parameters throws(APIError) in
            try service.getEvents(request, parameters)
        },
        // The page holds no state and the token comes from its URL fragment: it loads without one.
        Route("GET", "/preview", .channel, .open) { service, request, _ throws(APIError) in
            .response(service.preview.response(to: request))
        },
        Route("GET", "/channels", .server, .read) { service, _, _ throws(APIError) in
            .response(service.listChannels())
        },
        Route("GET", "/channels/{name}", .server, .read) { service, _, parameters throws(APIError) in
            .response(try service.channelSummary(parameters))
        },
        Route("GET", "/healthz", .server, .open) { service, _, _ throws(APIError) in .response(service.health()) },
        Route("GET", "/metrics", .server, .read) { service, _, _ throws(APIError) in .response(service.getMetrics()) },
        Route("GET", "/clock", .server, .read) { service, _, _ throws(APIError) in .response(service.getClock()) },
        Route("POST", "/clock", .server, .write) { service, request, _ throws(APIError) in
            .response(try service.postClock(request))
        },
        Route("GET", "/openapi.yaml", .server, .read) { service, _, _ throws(APIError) in
            .response(service.openAPI())
        },
    ]
}
