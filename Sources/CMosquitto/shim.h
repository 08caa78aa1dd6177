#ifndef PUSHBRIDGE_CMOSQUITTO_SHIM_H
#define PUSHBRIDGE_CMOSQUITTO_SHIM_H
// mqtt_protocol.h is not included by mosquitto.h: it holds the MQTT 5 property
// identifiers and reason codes, so both are pulled in here.
#include <mosquitto.h>
#include <mqtt_protocol.h>
// The network loop's cross-thread wake-up (see LoopWakeup.swift): not in Swift's Glibc module.
#include <sys/eventfd.h>
#endif
