extension OverlayService {
    /// Every endpoint of overlayd (see `Route`): one row each, and its handler. Channel routes
    /// also answer under `/channels/{name}`; the index at `GET /` lists them in this order.
    static let routes: [Route] = [
        Route("GET", "/", .server, .readEverything) { service, _, _ throws(APIError) in
            .response(service.serverInfo.index())
        },
        Route("POST", "/messages", .channel, .write) { service, request, parameters throws(APIError) in
            // An empty query (nearly every POST) looks for no template.
            if !request.query.isEmpty, let template = request.query.first(where: { $0.name == "template" }) {
                return try service.webhooks.post(
                    request, parameters, template: String(decoding: template.value ?? [], as: UTF8.self))
            }
            return try service.messages.post(request, parameters)
        },
        Route("GET", "/messages", .channel, .read) { service, request, parameters throws(APIError) in
            .response(try service.messages.list(request, parameters))
        },
        Route("GET", "/messages/{id}", .channel, .read) { service, request, parameters throws(APIError) in
            .response(try service.messages.get(request, parameters))
        },
        Route("PATCH", "/messages/{id}", .channel, .write) { service, request, parameters throws(APIError) in
            try service.messages.patch(request, parameters)
        },
        Route("DELETE", "/messages/{id}", .channel, .write) { service, _, parameters throws(APIError) in
            try service.messages.delete(parameters)
        },
        Route("GET", "/overlay", .channel, .read) { service, request, parameters throws(APIError) in
            try service.overlays.overlay(request, parameters)
        },
        Route("POST", "/overlay/hold", .channel, .write) { service, _, parameters throws(APIError) in
            try service.touches.hold(parameters)
        },
        Route("POST", "/overlay/release", .channel, .write) { service, _, parameters throws(APIError) in
            try service.touches.release(parameters)
        },
        Route("POST", "/overlay/dismiss", .channel, .write) { service, _, parameters throws(APIError) in
            try service.touches.dismiss(parameters)
        },
        Route("POST", "/overlay/tap", .channel, .write) { service, request, parameters throws(APIError) in
            try service.touches.tap(request, parameters)
        },
        Route("PUT", "/orientation", .channel, .write) { service, request, parameters throws(APIError) in
            try service.settings.put(.orientation, request, parameters)
        },
        Route("PUT", "/device", .channel, .write) { service, request, parameters throws(APIError) in
            try service.settings.put(.device, request, parameters)
        },
        Route("PUT", "/presentation", .channel, .write) { service, request, parameters throws(APIError) in
            try service.settings.put(.presentation, request, parameters)
        },
        Route("GET", "/statusbar", .channel, .read) { service, request, parameters throws(APIError) in
            .response(service.statusBars.get(request, parameters))
        },
        Route("PUT", "/statusbar", .channel, .write) { service, request, parameters throws(APIError) in
            try service.statusBars.put(request, parameters)
        },
        Route("PUT", "/statusbar/controllers", .channel, .write) { service, request, parameters throws(APIError) in
            try service.statusBars.putControllers(request, parameters)
        },
        Route("GET", "/events", .channel, .read) { service, request, parameters throws(APIError) in
            try service.overlays.events(request, parameters)
        },
        // The page holds no state and the token comes from its URL fragment: it loads without one.
        Route("GET", "/preview", .channel, .open) { service, request, _ throws(APIError) in
            .response(service.preview.response(to: request))
        },
        // The font the texts are measured with, for the page to draw them in: open as the page is.
        Route("GET", "/preview/font", .server, .open) { service, request, _ throws(APIError) in
            .response(try service.previewFont.response(to: request))
        },
        // The web component's module: code and drawing settings, no data; open as the page is, so
        // that a page of any origin the CORS rules allow may import it before it has a token.
        Route("GET", "/overlayd.js", .server, .open) { service, request, _ throws(APIError) in
            .response(service.module.response(to: request))
        },
        Route("GET", "/channels", .server, .readSome) { service, _, parameters throws(APIError) in
            .response(service.channelList.list(parameters))
        },
        Route("GET", "/channels/{name}", .server, .read) { service, _, parameters throws(APIError) in
            .response(try service.channelList.summary(parameters))
        },
        Route("DELETE", "/channels/{name}", .server, .write) { service, _, parameters throws(APIError) in
            try service.channelList.delete(parameters)
        },
        Route("GET", "/healthz", .server, .open) { service, _, _ throws(APIError) in
            .response(service.serverInfo.health())
        },
        Route("GET", "/metrics", .server, .readEverything) { service, _, _ throws(APIError) in
            .response(service.serverInfo.metricsText())
        },
        Route("GET", "/clock", .server, .readSome) { service, _, _ throws(APIError) in .response(service.clocks.get())
        },
        Route("POST", "/clock", .server, .writeEverything) { service, request, _ throws(APIError) in
            .response(try service.clocks.post(request))
        },
        Route("GET", "/openapi.yaml", .server, .open) { service, request, _ throws(APIError) in
            .response(service.serverInfo.openAPI(request))
        },
        Route("POST", "/tokens", .server, .admin) { service, request, _ throws(APIError) in
            .response(try service.tokens.create(request))
        },
        Route("GET", "/tokens", .server, .admin) { service, _, _ throws(APIError) in
            .response(try service.tokens.list())
        },
        Route("GET", "/tokens/{id}", .server, .admin) { service, _, parameters throws(APIError) in
            .response(try service.tokens.get(parameters))
        },
        Route("DELETE", "/tokens/{id}", .server, .admin) { service, _, parameters throws(APIError) in
            .response(try service.tokens.revoke(parameters))
        },
        // nginx's question before nchan takes a subscriber: it checks the credential itself.
        Route("GET", "/auth", .server, .subrequest) { service, request, _ throws(APIError) in
            .response(try AuthHandlers(guardian: service.guardian).authorize(request))
        },
        Route("GET", "/whoami", .server, .anyone) { service, _, parameters throws(APIError) in
            .response(service.tokens.whoami(parameters))
        },
    ]
}
