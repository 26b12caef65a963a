"""Devices: naming them (``names``), the per-thread ``gc.device`` scopes (``scope``) and
where eager work and copies run (``placement``). See docs/devices.md."""

from graphc.device.names import LogicalDevice, PhysicalDevice
from graphc.device.scope import device

__all__ = ["LogicalDevice", "PhysicalDevice", "device"]
