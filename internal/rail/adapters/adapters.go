// Package adapters lists the payment rails this deployment has (one adapter of the rail
// port each) and builds the registry that configuration routes payments to them by.
package adapters

import (
	"paycore/internal/rail"
	"paycore/internal/sandbox/sandboxrail"
)

// All are the rails a route may name. A new rail's adapter is added here.
func All() []rail.Rail {
	return []rail.Rail{sandboxrail.Rail{}}
}

// Registry routes payments by routes (PAYCORE_RAILS) to the rails of All and the
// connected rails (those built from configuration, such as the Lightning rail over the
// deployment's node); an error names a route none of them serves.
func Registry(routes []rail.Route, connected ...rail.Rail) (*rail.Registry, error) {
	return rail.NewRegistry(routes, append(All(), connected...)...)
}

// Default is the registry of rail.DefaultRoutes: the sandbox rail for sandbox platforms,
// no rail for production.
func Default() *rail.Registry {
	routes, err := rail.ParseRoutes(rail.DefaultRoutes)
	if err != nil {
		panic(err) // a constant
	}
	reg, err := Registry(routes)
	if err != nil {
		panic(err) // a constant routed to a rail of All
	}
	return reg
}
