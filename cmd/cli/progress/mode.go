package progress

import (
	"fmt"
	"strings"
)

// Mode is the --progress flag: auto (a bar when stderr is a terminal), on
// (a bar on a terminal, log lines otherwise) or off. A bare --progress
// means on.
type Mode string

// The modes.
const (
	Auto Mode = "auto"
	On   Mode = "on"
	Off  Mode = "off"
)

func (p *Mode) String() string   { return string(*p) }
func (p *Mode) IsBoolFlag() bool { return true }
func (p *Mode) Set(s string) error {
	switch strings.ToLower(s) {
	case "auto":
		*p = Auto
	case "on", "true", "1", "yes":
		*p = On
	case "off", "false", "0", "no":
		*p = Off
	default:
		return fmt.Errorf("want auto, on or off")
	}
	return nil
}
