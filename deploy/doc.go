// Package deploy holds no code: it is the configuration of a site of many
// tables (docs/site.md) and its tests. mosquitto/ has the broker's
// configuration, a bridge from a room's broker to the central one, and
// add-table and add-console, which give a table its monitor's and
// controller's users and a console its own, with ACLs; emqx/ the same for
// an EMQX cluster; prometheus/ and grafana/ the scrape, the alerting
// rules and the dashboard; postgres/ the consoles' database; replay/ a
// Kubernetes Indexed Job that replays an archive one recording a pod.
//
// The tests run the Mosquitto configuration on a real broker with the
// users add-table makes (who may publish and read what, and consoles
// sharing a subscription), parse every YAML and JSON file, and check that
// the dashboard and the rules ask only for metrics monitor live exports.
package deploy
