package markettest

// RouteRequired is the comma-separated query parameters the route of path
// requires, and its asset class; ok is false for a path no route serves.
func RouteRequired(path string) (required string, class Class, ok bool) {
	rt, _ := findRoute(routes, path)
	if rt == nil {
		return "", "", false
	}
	return rt.required, rt.class, true
}
